-- Logical decoding needs wal_level = logical, a server start parameter: the
-- CDC relay asks once and refuses with what to change instead of waiting on
-- a slot the server cannot make.
SELECT current_setting('wal_level')
