# Redis for a host with no container registry, in place of redis:7: Debian 12's Redis 7.0,
# run as the redis user in /data (where --appendonly writes), as in the official image.
# docker-compose.yml passes --protected-mode no (the official image's default): Redis is
# reached on the compose network only, or with a password (REDIS_PASSWORD).
# Built by deploy/offline_images.py.
ARG DEBIAN_IMAGE=cucumber-arena-offline/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
    && apt-get install -y redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o redis -g redis /data
WORKDIR /data
USER redis
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no"]
