-- What the card provider's own database holds (S19): every charge it made,
-- and the payments it charged more than once (double_charges) with one of
-- them for an example.
SELECT (SELECT count(*) FROM provider.charges),
       count(*),
       min(payment_id::text)
FROM (SELECT payment_id FROM provider.charges GROUP BY payment_id HAVING count(*) > 1) AS twice
