# PostgreSQL for a host with no container registry, in place of postgres:16: Debian 12's
# PostgreSQL 15, with the official image's contract (POSTGRES_USER, POSTGRES_PASSWORD,
# POSTGRES_DB on the first start, data in /var/lib/postgresql/data, pg_isready, pg_dump).
# Built by deploy/offline_images.py.
ARG DEBIAN_IMAGE=cucumber-arena-offline/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
    && apt-get install -y postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
# SIGINT: PostgreSQL's fast shutdown, as in the official image.
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["postgres-entrypoint.sh"]
