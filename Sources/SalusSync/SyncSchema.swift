/// The PostgreSQL schema `salus-sync` writes: numbered migrations, applied in order, each once,
/// under an advisory lock so that two `salus-sync` processes starting together (a person's two
/// machines) never run one twice.
///
/// Every table leads with `person_id` and every primary key includes it. Why: on a distributed
/// PostgreSQL (Citus) the tables are distributed on `person_id`, and a distributed table's
/// unique constraints must contain its distribution column; one person's rows then live on one
/// node, so a batch's transaction stays on one node too (docs/sync.md).
package enum SyncSchema {
    /// The schema (namespace) that holds the tables.
    package static let name = "salus"

    /// The migrations; the version of migration `i` is `i + 1`. Append only: never edit one
    /// that has shipped.
    package static let migrations: [String] = [
        """
        CREATE TABLE salus.person (
            person_id text PRIMARY KEY,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        -- One feed per person and store (origin): the anchor of the store's change sequence that
        -- the last committed batch reached, committed in the same transaction as the batch.
        CREATE TABLE salus.feeds (
            person_id text NOT NULL REFERENCES salus.person,
            origin text NOT NULL,
            anchor bigint NOT NULL DEFAULT 0,
            generation bigint NOT NULL DEFAULT 1,
            resyncing boolean NOT NULL DEFAULT false,
            committed_at timestamptz,
            changes_committed bigint NOT NULL DEFAULT 0,
            last_error text,
            last_error_at timestamptz,
            PRIMARY KEY (person_id, origin)
        );
        CREATE TABLE salus.samples (
            person_id text NOT NULL,
            uuid uuid NOT NULL,
            origin text NOT NULL,
            generation bigint NOT NULL,
            type text NOT NULL,
            kind text NOT NULL,
            start_date timestamptz NOT NULL,
            end_date timestamptz NOT NULL,
            quantity_value double precision,
            quantity_unit text,
            category_value integer,
            source_app_id text NOT NULL,
            source_name text NOT NULL,
            source_version text,
            source_product_type text,
            source_os_version text,
            device_name text,
            device_manufacturer text,
            device_model text,
            device_hardware_version text,
            device_firmware_version text,
            device_software_version text,
            device_local_identifier text,
            device_udi text,
            metadata jsonb NOT NULL DEFAULT '{}',
            sync_identifier text,
            sync_version double precision,
            creation_date timestamptz NOT NULL,
            payload bytea NOT NULL,
            anchor bigint NOT NULL,
            synced_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (person_id, uuid)
        );
        CREATE INDEX samples_type_start ON salus.samples (person_id, type, start_date);
        CREATE INDEX samples_origin_generation ON salus.samples (person_id, origin, generation);
        CREATE TABLE salus.tombstones (
            person_id text NOT NULL,
            uuid uuid NOT NULL,
            origin text NOT NULL,
            type text NOT NULL,
            metadata jsonb NOT NULL DEFAULT '{}',
            anchor bigint NOT NULL,
            deleted_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (person_id, uuid)
        );
        -- What the care team writes for the person's store: saved into Salus with the row's sync
        -- identifier and version, then marked with what became of it.
        CREATE TABLE salus.inbox (
            person_id text NOT NULL REFERENCES salus.person,
            id bigserial,
            type text NOT NULL,
            start_date timestamptz NOT NULL,
            end_date timestamptz,
            quantity_value double precision,
            quantity_unit text,
            category_value integer,
            metadata jsonb NOT NULL DEFAULT '{}',
            sync_identifier text NOT NULL,
            sync_version double precision NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            applied_at timestamptz,
            applied_uuid uuid,
            outcome text,
            error text,
            PRIMARY KEY (person_id, id)
        );
        CREATE INDEX inbox_pending ON salus.inbox (person_id, id) WHERE applied_at IS NULL;
        """,
        // Between a person's machines: every row written gets the person's next `seq` (in the
        // transaction that holds the person's row, so seq order is commit order), and each store
        // pulls the rows of the other stores after its `pulled_seq`. `reason` tells a deletion
        // from a sample that lost to another of the same sync identifier ('superseded'), which
        // every store removes, the one that sent it included.
        """
        ALTER TABLE salus.person ADD COLUMN last_seq bigint NOT NULL DEFAULT 0;
        ALTER TABLE salus.samples ADD COLUMN seq bigint NOT NULL DEFAULT 0;
        ALTER TABLE salus.tombstones ADD COLUMN seq bigint NOT NULL DEFAULT 0;
        ALTER TABLE salus.tombstones ADD COLUMN reason text NOT NULL DEFAULT 'deleted';
        ALTER TABLE salus.feeds ADD COLUMN pulled_seq bigint NOT NULL DEFAULT -1;
        CREATE INDEX samples_seq ON salus.samples (person_id, seq);
        CREATE INDEX tombstones_seq ON salus.tombstones (person_id, seq);
        CREATE INDEX samples_sync_identifier ON salus.samples (person_id, source_app_id, type, sync_identifier)
            WHERE sync_identifier IS NOT NULL;
        """,
        // What salus-sync knows of the app's access, kept across its restarts
        // (SyncEngine.AccessMemory): by type identifier, the anchor each type was last seen
        // allowed at ("granted"), the anchor after which a withdrawn type's changes may be
        // missing ("withdrawn"), and the anchor a backfill still owes from ("backfill").
        """
        ALTER TABLE salus.feeds ADD COLUMN access jsonb NOT NULL DEFAULT '{}';
        """,
    ]
}
