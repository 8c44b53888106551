-- Workflow Index, PostgreSQL schema: the server's login is bounded by the database itself.
--
-- The query cost (server/core/src/query-cost.ts) prices a request before it runs, and the server sets
-- statement_timeout on its own sessions (DATABASE_QUERY_TIMEOUT_MS); a request the cost misjudges must still end in
-- bounded time and memory, and so must any other session of the login. PostgreSQL keeps such defaults per login role
-- (ALTER ROLE … SET), never per group: bound_reader_login applies them to one login, for this database only; the init
-- job calls it for the reader login it creates (and sql/create-login-roles.sql does), and below it is applied to every
-- reader login that exists already.
--   statement_timeout 30s   a backstop for sessions that set none (the server's own setting wins in its sessions)
--   work_mem 4MB            PostgreSQL's default, pinned: a cluster tuned for other work (a large global work_mem)
--                           does not raise what a sort or hash of ours may take
--   idle_in_transaction_session_timeout 60s   a client that stops in a transaction gives its locks back
-- Altering another role takes CREATEROLE (or a superuser): a migrating role without it leaves the logins as they are
-- and says so (NOTICE); the init job's next login step applies them.
CREATE OR REPLACE FUNCTION workflow_index.bound_reader_login(login NAME) RETURNS VOID
LANGUAGE plpgsql
AS $$
BEGIN
  EXECUTE format('ALTER ROLE %I IN DATABASE %I SET statement_timeout = %L', login, current_database(), '30s');
  EXECUTE format('ALTER ROLE %I IN DATABASE %I SET work_mem = %L', login, current_database(), '4MB');
  EXECUTE format('ALTER ROLE %I IN DATABASE %I SET idle_in_transaction_session_timeout = %L', login, current_database(), '60s');
END
$$;
REVOKE ALL ON FUNCTION workflow_index.bound_reader_login(NAME) FROM PUBLIC;

DO $$
DECLARE
  login NAME;
BEGIN
  FOR login IN
    SELECT m.rolname FROM pg_auth_members a
    JOIN pg_roles g ON g.oid = a.roleid AND g.rolname = 'workflow_index_reader'
    JOIN pg_roles m ON m.oid = a.member AND m.rolcanlogin AND NOT m.rolsuper
  LOOP
    BEGIN
      PERFORM workflow_index.bound_reader_login(login);
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'reader login % keeps its session defaults: this role may not alter it (init-job migrate with the reader login sets them)', login;
    END;
  END LOOP;
END
$$;
