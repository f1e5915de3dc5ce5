# The test cluster's MongoDB-wire store: FerretDB (built from the Go module proxy by
# scripts/tools/ferretdb.sh) over Debian's PostgreSQL 15, both in one container, as the test suite
# runs them on the host (test/support/ferretdb.ts). A throwaway store for tests, not for users.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY ferretdb /usr/local/bin/ferretdb
COPY store-entrypoint.sh /usr/local/bin/store-entrypoint.sh
COPY postgresql-gin-twins.sql /usr/local/share/herald/postgresql-gin-twins.sql
USER postgres
EXPOSE 27017
ENTRYPOINT ["/usr/local/bin/store-entrypoint.sh"]
