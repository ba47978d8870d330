# The Docker client for a host with no container registry, in place of docker:27-cli: the
# `docker` binary of Debian's docker.io package at the path deploy/web.Dockerfile copies
# it from (/usr/local/bin/docker). It needs glibc, which both Python bases have.
# Built by deploy/offline_images.py.
ARG DEBIAN_IMAGE=cucumber-arena-offline/debian:bookworm
FROM ${DEBIAN_IMAGE} AS debian
RUN apt-get update \
    && cd /tmp \
    && apt-get download docker.io \
    && dpkg-deb -x docker.io_*.deb /tmp/docker.io \
    && rm -rf /var/lib/apt/lists/*

FROM scratch
COPY --from=debian /tmp/docker.io/usr/bin/docker /usr/local/bin/docker
