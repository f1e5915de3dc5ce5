-- Applied by the dev and test store's launchers (test/support/ferretdb.ts, scripts/cluster/store-entrypoint.sh)
-- to the PostgreSQL cluster behind FerretDB v1; idempotent.
--
-- FerretDB v1 hands a filter's top-level equalities to PostgreSQL as JSON containment,
-- `(_jsonb -> 'field') @> '<value>'`, and builds every index a client creates as a btree over
-- `(_jsonb -> 'field')`. A btree cannot serve `@>`, so every lookup, even by `_id`, is a sequential
-- scan of the table. A GIN index over the same expressions serves `@>`: for each btree index
-- FerretDB creates, this trigger creates a GIN twin over its expressions (and drops it with it), so
-- an equality on the leading field of any index Herald declares is an index scan. Sorts, ranges and
-- `$in` stay in FerretDB's Go code; docs/ARCHITECTURE.md "Store compatibility" says what that costs.
--
-- The twins are built without GIN's pending list (`fastupdate = off`): with it, new entries wait in
-- an unsorted list that every lookup reads whole until a vacuum merges it, and every update of a
-- queued row adds an entry to each twin of its table. Measured over a 5,000-row backlog, the queue's
-- lookups read 140 blocks a call (2.5 ms) with the list, 17 (1.0 ms) without.
CREATE OR REPLACE FUNCTION herald_gin_twin_name(btree_name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT left(btree_name, 50) || '_' || left(md5(btree_name), 8) || '_gin'
$$;

-- The twin of one index, when it is one of FerretDB's: a btree whose every column is an expression over `_jsonb`.
CREATE OR REPLACE FUNCTION herald_create_gin_twin(btree_oid oid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  btree record;
  expressions text;
BEGIN
  SELECT index_class.relname AS index_name, table_class.relname AS table_name, table_ns.nspname AS schema_name, ix.indnatts
    INTO btree
    FROM pg_index AS ix
    JOIN pg_class AS index_class ON index_class.oid = ix.indexrelid
    JOIN pg_am AS am ON am.oid = index_class.relam
    JOIN pg_class AS table_class ON table_class.oid = ix.indrelid
    JOIN pg_namespace AS table_ns ON table_ns.oid = table_class.relnamespace
    WHERE ix.indexrelid = btree_oid AND am.amname = 'btree' AND ix.indexprs IS NOT NULL;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT string_agg(pg_get_indexdef(btree_oid, column_number, true), ', ' ORDER BY column_number)
    INTO expressions
    FROM generate_series(1, btree.indnatts) AS column_number;
  IF expressions NOT LIKE '(_jsonb -> %' THEN
    RETURN;
  END IF;
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin (%s) WITH (fastupdate = off)',
    herald_gin_twin_name(btree.index_name), btree.schema_name, btree.table_name, expressions);
  -- A twin built by an earlier version of this file, with the list.
  EXECUTE format('ALTER INDEX %I.%I SET (fastupdate = off)', btree.schema_name, herald_gin_twin_name(btree.index_name));
END
$$;

CREATE OR REPLACE FUNCTION herald_create_gin_twins() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  created record;
BEGIN
  FOR created IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' LOOP
    PERFORM herald_create_gin_twin(created.objid);
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION herald_drop_gin_twins() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  dropped record;
BEGIN
  FOR dropped IN
    SELECT schema_name, object_name FROM pg_event_trigger_dropped_objects()
    WHERE object_type = 'index' AND object_name NOT LIKE '%\_gin'
  LOOP
    EXECUTE format('DROP INDEX IF EXISTS %I.%I', dropped.schema_name, herald_gin_twin_name(dropped.object_name));
  END LOOP;
END
$$;

DROP EVENT TRIGGER IF EXISTS herald_create_gin_twins;
CREATE EVENT TRIGGER herald_create_gin_twins ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION herald_create_gin_twins();
DROP EVENT TRIGGER IF EXISTS herald_drop_gin_twins;
CREATE EVENT TRIGGER herald_drop_gin_twins ON sql_drop
  EXECUTE FUNCTION herald_drop_gin_twins();

-- Indexes made before the trigger existed (a data directory kept from an earlier start).
SELECT herald_create_gin_twin(index_class.oid)
  FROM pg_class AS index_class
  JOIN pg_am AS am ON am.oid = index_class.relam
  WHERE index_class.relkind = 'i' AND am.amname = 'btree' AND index_class.relname NOT LIKE 'pg\_%';
