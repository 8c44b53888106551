-- Workflow Index: create or update the login roles, for operators who apply SQL by hand.
-- The init job does the same with `migrate` when WORKFLOW_INDEX_READER_* / _FORWARDER_* / _PRUNER_* are set.
--
-- Run it as a role that may create roles (superuser or CREATEROLE), in the Workflow Index database, AFTER the
-- migrations (they create the group roles workflow_index_reader, workflow_index_forwarder and workflow_index_pruner):
--
--   psql "$ADMIN_DATABASE_URL" \
--     -v reader_user=workflow_index_server    -v reader_password="$READER_PASSWORD" \
--     -v forwarder_user=workflow_index_fluentbit -v forwarder_password="$FORWARDER_PASSWORD" \
--     -v pruner_user=workflow_index_prune -v pruner_password="$PRUNER_PASSWORD" \
--     -f server/postgresql/sql/create-login-roles.sql
--
-- Any pair may be left out; only the roles whose user name is given are touched. Running it again rotates
-- the passwords. Arguments of -v are visible in the process list: on shared hosts use psql 15's
-- `\getenv reader_password READER_PASSWORD` in an interactive session instead, or `\password <role>` afterwards.
--
-- What each login gets:
--   reader     member of workflow_index_reader: SELECT on workflow_index.workflow_instances / task_executions and
--              EXECUTE on workflow_index.ingest_stats(). The GraphQL server connects as this role.
--   forwarder  member of workflow_index_forwarder: INSERT on the raw tables, USAGE and CREATE on schema workflow_raw,
--              and search_path = workflow_raw, because Fluent Bit's pgsql output writes unqualified table names and
--              runs CREATE TABLE IF NOT EXISTS at start-up (PostgreSQL checks CREATE on the schema before it sees
--              that the table exists). Fluent Bit connects as this role.
--   pruner     member of workflow_index_pruner: EXECUTE on the retention functions only (`init-job prune`, the
--              prune-cronjob component). Nothing else: it cannot read or write any table directly.
-- Identifiers are quoted with :"var" and passwords passed as literals with :'var', so any characters are safe.

\set ON_ERROR_STOP on

BEGIN;

-- The group roles come from the migrations; stop with a clear error when they are missing.
DO $$
BEGIN
  IF (SELECT count(*) FROM pg_roles WHERE rolname IN ('workflow_index_reader', 'workflow_index_forwarder', 'workflow_index_pruner')) <> 3 THEN
    RAISE EXCEPTION 'group roles workflow_index_reader / workflow_index_forwarder / workflow_index_pruner are missing: run the migrations first';
  END IF;
END
$$;

\if :{?reader_user}
  \if :{?reader_password}
  \else
    DO $$ BEGIN RAISE EXCEPTION 'reader_user is set but reader_password is not: pass -v reader_password=...'; END $$;
  \endif
  -- Never turn an existing superuser into the server's login.
  SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'reader_user' AND rolsuper) AS reader_is_superuser \gset
  \if :reader_is_superuser
    DO $$ BEGIN RAISE EXCEPTION 'reader_user names a superuser; choose a dedicated login'; END $$;
  \endif
  -- Create the role when it does not exist yet; the ALTER below sets its attributes and password either way.
  SELECT format('CREATE ROLE %I WITH LOGIN INHERIT', :'reader_user')
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'reader_user') \gexec
  ALTER ROLE :"reader_user" WITH LOGIN INHERIT PASSWORD :'reader_password';
  GRANT workflow_index_reader TO :"reader_user";
  -- statement_timeout, work_mem and idle_in_transaction_session_timeout of its sessions (migrations/0015)
  SELECT workflow_index.bound_reader_login(:'reader_user') AS reader_limits_set \gset
  \echo reader login :"reader_user" is a member of workflow_index_reader
\endif

\if :{?forwarder_user}
  \if :{?forwarder_password}
  \else
    DO $$ BEGIN RAISE EXCEPTION 'forwarder_user is set but forwarder_password is not: pass -v forwarder_password=...'; END $$;
  \endif
  SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'forwarder_user' AND rolsuper) AS forwarder_is_superuser \gset
  \if :forwarder_is_superuser
    DO $$ BEGIN RAISE EXCEPTION 'forwarder_user names a superuser; choose a dedicated login'; END $$;
  \endif
  SELECT format('CREATE ROLE %I WITH LOGIN INHERIT', :'forwarder_user')
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'forwarder_user') \gexec
  ALTER ROLE :"forwarder_user" WITH LOGIN INHERIT PASSWORD :'forwarder_password';
  GRANT workflow_index_forwarder TO :"forwarder_user";
  ALTER ROLE :"forwarder_user" SET search_path = workflow_raw;
  \echo forwarder login :"forwarder_user" is a member of workflow_index_forwarder, search_path workflow_raw
\endif

\if :{?pruner_user}
  \if :{?pruner_password}
  \else
    DO $$ BEGIN RAISE EXCEPTION 'pruner_user is set but pruner_password is not: pass -v pruner_password=...'; END $$;
  \endif
  SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'pruner_user' AND rolsuper) AS pruner_is_superuser \gset
  \if :pruner_is_superuser
    DO $$ BEGIN RAISE EXCEPTION 'pruner_user names a superuser; choose a dedicated login'; END $$;
  \endif
  SELECT format('CREATE ROLE %I WITH LOGIN INHERIT', :'pruner_user')
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'pruner_user') \gexec
  ALTER ROLE :"pruner_user" WITH LOGIN INHERIT PASSWORD :'pruner_password';
  GRANT workflow_index_pruner TO :"pruner_user";
  \echo pruner login :"pruner_user" is a member of workflow_index_pruner
\endif

COMMIT;
