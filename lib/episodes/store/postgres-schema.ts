// The PostgreSQL schema as numbered migrations (applied at start by ./postgres-db.ts; never edit a
// shipped one). Columns mirror the SQLite store's (./db.ts), so both read rows alike: times and rewards
// as DOUBLE PRECISION, flags as SMALLINT 0/1, JSON as text kept as written (jsonb reorders keys).
import "server-only";

export const MIGRATIONS: string[] = [
  // 1: trajectories, their steps, and the servers users added.
  `CREATE TABLE trajectories (
     id TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     server TEXT NOT NULL,
     env TEXT,
     sid TEXT,
     task_json TEXT,
     task_label TEXT NOT NULL,
     prompt_json TEXT,
     num_steps INTEGER NOT NULL DEFAULT 0,
     total_reward DOUBLE PRECISION NOT NULL DEFAULT 0,
     started_at DOUBLE PRECISION NOT NULL,
     ended_at DOUBLE PRECISION,
     last_activity_at DOUBLE PRECISION NOT NULL,
     end_reason TEXT,
     error TEXT,
     origin_json TEXT,
     stored_at DOUBLE PRECISION NOT NULL,
     reprompts_json TEXT,
     golden SMALLINT NOT NULL DEFAULT 0,
     replica TEXT
   );
   CREATE INDEX trajectories_started ON trajectories (started_at);
   CREATE INDEX trajectories_session ON trajectories (server, sid);
   CREATE INDEX trajectories_running ON trajectories (last_activity_at) WHERE end_reason IS NULL;
   CREATE INDEX trajectories_stored ON trajectories (stored_at, seq);
   CREATE INDEX trajectories_golden ON trajectories (golden) WHERE golden = 1;
   CREATE TABLE steps (
     trajectory_id TEXT NOT NULL REFERENCES trajectories (id) ON DELETE CASCADE,
     idx INTEGER NOT NULL,
     tool TEXT NOT NULL,
     input_json TEXT NOT NULL,
     task_id TEXT,
     started_at DOUBLE PRECISION NOT NULL,
     ended_at DOUBLE PRECISION,
     latency_ms DOUBLE PRECISION,
     ok SMALLINT,
     error TEXT,
     blocks_json TEXT NOT NULL,
     reward DOUBLE PRECISION,
     finished SMALLINT NOT NULL DEFAULT 0,
     metadata_json TEXT,
     events_json TEXT NOT NULL,
     replay_json TEXT,
     after_end SMALLINT NOT NULL DEFAULT 0,
     truncated_json TEXT,
     replica TEXT,
     PRIMARY KEY (trajectory_id, idx)
   );
   CREATE TABLE added_servers (
     name TEXT PRIMARY KEY,
     url TEXT NOT NULL,
     api_key TEXT,
     idle_timeout_ms DOUBLE PRECISION,
     added_at DOUBLE PRECISION NOT NULL
   );
   REVOKE ALL ON trajectories, steps, added_servers FROM PUBLIC;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
