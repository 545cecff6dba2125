-- The PostgreSQL roles of docker-compose.yml (docs/security.md, "Deployment"). The postgres image
-- runs this once, as its superuser, when it initialises an empty data volume
-- (/docker-entrypoint-initdb.d); on a volume initialised before, run it by hand (docs/operations.md).
-- Each password is a Docker secret made by ops/make-secrets.sh, read here by psql's backticks.
\set ON_ERROR_STOP on
\set owner_password `cat /run/secrets/db_owner_password`
\set api_password `cat /run/secrets/db_api_password`
\set saga_worker_password `cat /run/secrets/db_saga_worker_password`
\set relay_password `cat /run/secrets/db_relay_password`
\set payment_worker_password `cat /run/secrets/db_payment_worker_password`
\set reconciler_password `cat /run/secrets/db_reconciler_password`
\set sandbox_password `cat /run/secrets/db_sandbox_password`

-- The schema's owner: the one-shot `migrate` service logs in as it and runs the migrations.
CREATE ROLE sagas_owner LOGIN PASSWORD :'owner_password';
-- Every product role: may connect and use the schema, never change it; its rows are grants.sql's.
CREATE ROLE sagas_app NOLOGIN;
CREATE ROLE sagas_api LOGIN PASSWORD :'api_password' IN ROLE sagas_app;
CREATE ROLE sagas_saga_worker LOGIN PASSWORD :'saga_worker_password' IN ROLE sagas_app;
CREATE ROLE sagas_relay LOGIN PASSWORD :'relay_password' IN ROLE sagas_app;
CREATE ROLE sagas_payment_worker LOGIN PASSWORD :'payment_worker_password' IN ROLE sagas_app;
CREATE ROLE sagas_reconciler LOGIN PASSWORD :'reconciler_password' IN ROLE sagas_app;
-- The sandbox participants: a database of their own, which they own and migrate themselves.
CREATE ROLE sagas_sandbox LOGIN PASSWORD :'sandbox_password';

-- The product's database (POSTGRES_DB): owned by sagas_owner, reachable by the product roles only.
ALTER DATABASE sagas OWNER TO sagas_owner;
REVOKE ALL ON DATABASE sagas FROM PUBLIC;
GRANT CONNECT ON DATABASE sagas TO sagas_app;
ALTER SCHEMA public OWNER TO sagas_owner;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO sagas_app;
-- No default privileges: each role's grants, table by table, are ops/postgres/grants.sql, which the
-- migrate service applies after every migration (docs/security.md, "Deployment").

CREATE DATABASE sandbox OWNER sagas_sandbox;
REVOKE ALL ON DATABASE sandbox FROM PUBLIC;
GRANT CONNECT ON DATABASE sandbox TO sagas_sandbox;
