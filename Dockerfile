# syntax=docker/dockerfile:1
# The workshop host: one container serves a whole room over SSH
# (ssh -p 2222 NAME@HOST), on the PostgreSQL of Debian's own packages.
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t outboxlab .
#   docker run --rm -i -v outboxlab:/var/lib/outboxlab --entrypoint sh outboxlab \
#     -c 'cat > /var/lib/outboxlab/authorized_keys' < authorized_keys
#   docker run -it --name outboxlab -p 2222:2222 -v outboxlab:/var/lib/outboxlab outboxlab \
#     outboxlab workshop --ssh 0.0.0.0:2222 --authorized-keys /var/lib/outboxlab/authorized_keys
#
# -it gives the instructor the room's screen; with -d instead it logs a line
# per change (docker logs), and attaching later shows no more than that.
#
# A listener on a non-loopback address is refused unless --authorized-keys or
# --password restricts it, so a room on a LAN gives one of them as above; the
# default CMD states the listener only.

# Built on the build machine's own platform and cross-compiled (pure Go,
# CGO_ENABLED=0), so a multi-platform build does not run the compiler emulated.
FROM --platform=$BUILDPLATFORM golang:1.26-trixie AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=devel
ARG TARGETOS TARGETARCH
# -buildvcs=false: .dockerignore leaves .git out, VERSION names the build.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=${VERSION}" -o /out/outboxlab .

FROM debian:trixie-slim
# postgresql-common first, told not to create the "main" cluster the
# postgresql package would otherwise initdb at install: outboxlab makes its
# own in the volume. outboxlab would find the binaries under
# /usr/lib/postgresql/*/bin by itself (pg/binaries.go), but only after trying
# to download PostgreSQL 18 through embedded-postgres; OUTBOXLAB_PG_BIN (below)
# names them first, through a link that does not spell the major (17 on
# trixie). tini is PID 1: it reaps the postmasters pg_ctl leaves to it and
# passes docker stop's SIGTERM on.
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends postgresql-common; \
    sed -ri 's/^#?(create_main_cluster) .*$/\1 = false/' /etc/postgresql-common/createcluster.conf; \
    apt-get install -y --no-install-recommends postgresql tini ca-certificates; \
    rm -rf /var/lib/apt/lists/*; \
    pg_ctl=$(ls /usr/lib/postgresql/*/bin/pg_ctl); \
    ln -s "${pg_ctl%/bin/pg_ctl}" /usr/local/lib/postgresql; \
    install -d -o postgres -g postgres -m 0700 /var/lib/outboxlab
COPY --from=build /out/outboxlab /usr/local/bin/outboxlab

# The postgres account the package made: PostgreSQL refuses root, and a
# service facing a room's network has no use for it. Its data directory and
# the SSH host key (outboxlab's cache) and the learners' progress (its state)
# live in the one volume, so a new container resumes the room.
USER postgres
ENV LANG=C.UTF-8 \
    OUTBOXLAB_PG_BIN=/usr/local/lib/postgresql \
    XDG_CACHE_HOME=/var/lib/outboxlab/cache \
    XDG_STATE_HOME=/var/lib/outboxlab/state
VOLUME /var/lib/outboxlab
WORKDIR /var/lib/outboxlab
EXPOSE 2222
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["outboxlab", "workshop", "--ssh", "0.0.0.0:2222"]
