// The SQLite file behind the trajectory store: opened in PLAYGROUND_DATA_DIR (default `.data/`),
// created on first use, WAL mode, migrated on open (a `schema_version` table records how far).
import "server-only";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { type Env, settingOrDefault } from "@/lib/config";

export type Db = Database.Database;

/**
 * Prepares each SQL text once: compiling a statement costs more than running it, and the store
 * runs the same few statements for every step. Bounded (dynamic filters make a few variants).
 */
export type Statements = (sql: string) => Database.Statement;

export function statementCache(db: Db, max = 256): Statements {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql);
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(sql, st);
    }
    return st;
  };
}

/**
 * Runs `fn` in a transaction, or as part of the one already open: a write that is part of a batch
 * (the recorder's, one per event loop turn) needs no savepoint of its own, and saves two statements
 * per step. The batch's own transaction keeps it whole.
 */
export function atomically<T>(db: Db, fn: () => T): T {
  return db.inTransaction ? fn() : db.transaction(fn)();
}

/** Ordered migrations; index i brings the schema from version i to i + 1. Never edit a shipped one. */
export const MIGRATIONS: string[] = [
  // 1: trajectories and their steps.
  `CREATE TABLE trajectories (
     id TEXT PRIMARY KEY,
     server TEXT NOT NULL,
     env TEXT,
     sid TEXT,
     task_json TEXT,
     task_label TEXT NOT NULL,
     prompt_json TEXT,
     num_steps INTEGER NOT NULL DEFAULT 0,
     total_reward REAL NOT NULL DEFAULT 0,
     started_at INTEGER NOT NULL,
     ended_at INTEGER,
     last_activity_at INTEGER NOT NULL,
     end_reason TEXT,
     error TEXT,
     origin_json TEXT
   );
   CREATE INDEX trajectories_started ON trajectories(started_at);
   CREATE TABLE steps (
     trajectory_id TEXT NOT NULL REFERENCES trajectories(id) ON DELETE CASCADE,
     idx INTEGER NOT NULL,
     tool TEXT NOT NULL,
     input_json TEXT NOT NULL,
     task_id TEXT,
     started_at INTEGER NOT NULL,
     ended_at INTEGER,
     latency_ms REAL,
     ok INTEGER,
     error TEXT,
     blocks_json TEXT NOT NULL,
     reward REAL,
     finished INTEGER NOT NULL DEFAULT 0,
     metadata_json TEXT,
     events_json TEXT NOT NULL,
     replay_json TEXT,
     PRIMARY KEY (trajectory_id, idx)
   );`,
  // 2: look-ups by session (recorder, episode view reopening) and of running episodes.
  `CREATE INDEX trajectories_session ON trajectories(server, sid);
   CREATE INDEX trajectories_running ON trajectories(end_reason, last_activity_at);`,
  // 3: when a trajectory entered this store (imports are old episodes stored now): the age cap
  // counts from here. Older rows fall back to started_at.
  `ALTER TABLE trajectories ADD COLUMN stored_at INTEGER;`,
  // 4: steps made after the episode finished (kept, not counted), and prompts requested again.
  `ALTER TABLE steps ADD COLUMN after_end INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE trajectories ADD COLUMN reprompts_json TEXT;`,
  // 5: what the step-size cap cut from a step (PLAYGROUND_MAX_STEP_BYTES), when it cut something.
  `ALTER TABLE steps ADD COLUMN truncated_json TEXT;`,
  // 6: golden trajectories (regression tests' references): listed by a filter, kept by retention.
  `ALTER TABLE trajectories ADD COLUMN golden INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX trajectories_golden ON trajectories(golden) WHERE golden = 1;`,
  // 7: runs (lib/runs) beside trajectories: a run's episodes are trajectories tagged with it; the
  // tool specs an episode was played with (stored once per distinct set); who chose each call
  // (agent) and how a policy stopped; the recording processes, so a dead one's work is recovered.
  `ALTER TABLE trajectories ADD COLUMN run_id TEXT;
   ALTER TABLE trajectories ADD COLUMN run_task INTEGER;
   ALTER TABLE trajectories ADD COLUMN run_repeat INTEGER;
   ALTER TABLE trajectories ADD COLUMN tools_hash TEXT;
   ALTER TABLE trajectories ADD COLUMN agent_end_json TEXT;
   ALTER TABLE trajectories ADD COLUMN instance_id TEXT;
   CREATE INDEX trajectories_run ON trajectories(run_id, run_task, run_repeat) WHERE run_id IS NOT NULL;
   ALTER TABLE steps ADD COLUMN agent_json TEXT;
   CREATE TABLE tool_sets (hash TEXT PRIMARY KEY, tools_json TEXT NOT NULL);
   CREATE TABLE instances (
     id TEXT PRIMARY KEY,
     pid INTEGER NOT NULL,
     host TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     beat_at INTEGER NOT NULL
   );
   CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     status TEXT NOT NULL,
     server TEXT NOT NULL,
     env TEXT NOT NULL,
     split TEXT NOT NULL,
     repeats INTEGER NOT NULL,
     episodes INTEGER NOT NULL,
     config_json TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     started_at INTEGER,
     ended_at INTEGER,
     error TEXT,
     instance_id TEXT
   );
   CREATE INDEX runs_created ON runs(created_at);
   CREATE TABLE run_episodes (
     run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
     task_index INTEGER NOT NULL,
     repeat INTEGER NOT NULL,
     status TEXT NOT NULL DEFAULT 'pending',
     trajectory_id TEXT,
     reward REAL,
     finished INTEGER,
     turns INTEGER,
     steps INTEGER,
     duration_ms REAL,
     prompt_tokens INTEGER,
     completion_tokens INTEGER,
     error TEXT,
     stop TEXT,
     started_at INTEGER,
     ended_at INTEGER,
     PRIMARY KEY (run_id, task_index, repeat)
   );
   CREATE INDEX run_episodes_status ON run_episodes(run_id, status);`,
  // 8: which process carries each call (a step in flight of a process that died is cut, one carried
  // by a living one is shown running), and which one plays each episode of a run (a process that lost
  // its run cannot write over the one that took it over).
  `ALTER TABLE steps ADD COLUMN instance_id TEXT;
   ALTER TABLE run_episodes ADD COLUMN instance_id TEXT;`,
  // 9: the protocol log (FORMAT.md "Protocol log"): every request of an episode's session with its
  // answer, numbered per trajectory, within caps counted on the trajectory (what went beyond them is
  // counted as dropped); and where a step came from when it replays a logged call.
  `CREATE TABLE exchanges (
     trajectory_id TEXT NOT NULL REFERENCES trajectories(id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     at INTEGER NOT NULL,
     ms REAL NOT NULL,
     method TEXT NOT NULL,
     path TEXT NOT NULL,
     status INTEGER NOT NULL,
     request_headers_json TEXT NOT NULL,
     request_body TEXT NOT NULL,
     request_size INTEGER NOT NULL,
     request_truncated INTEGER NOT NULL DEFAULT 0,
     response_type TEXT NOT NULL,
     response_body TEXT NOT NULL,
     response_size INTEGER NOT NULL,
     response_truncated INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (trajectory_id, seq)
   );
   ALTER TABLE trajectories ADD COLUMN exchanges_count INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE trajectories ADD COLUMN exchanges_chars INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE trajectories ADD COLUMN exchanges_dropped INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE steps ADD COLUMN origin_json TEXT;`,
  // 10: the client that played an episode, when it said who it is (an MCP client's name and version,
  // lib/mcp): JSON, read as the trajectory's `client`.
  `ALTER TABLE trajectories ADD COLUMN client_json TEXT;`,
  // 11: reviews (lib/review, docs/review.md): label sets per environment, people's labels on episodes
  // and steps (step 0 = the episode), review queues and their assignments, share links and the
  // runs of their players.
  `CREATE TABLE label_sets (
     id TEXT PRIMARY KEY,
     server TEXT NOT NULL,
     env TEXT NOT NULL,
     name TEXT NOT NULL,
     target TEXT NOT NULL,
     schema_json TEXT NOT NULL,
     verdict TEXT,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX label_sets_env ON label_sets(server, env);
   CREATE TABLE labels (
     label_set_id TEXT NOT NULL REFERENCES label_sets(id) ON DELETE CASCADE,
     trajectory_id TEXT NOT NULL REFERENCES trajectories(id) ON DELETE CASCADE,
     step INTEGER NOT NULL,
     reviewer TEXT NOT NULL,
     value_json TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (label_set_id, trajectory_id, step, reviewer)
   );
   CREATE INDEX labels_trajectory ON labels(trajectory_id);
   CREATE TABLE review_queues (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     label_set_id TEXT NOT NULL REFERENCES label_sets(id) ON DELETE CASCADE,
     run_id TEXT,
     blind INTEGER NOT NULL,
     success_at REAL NOT NULL,
     reviewers_json TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE review_items (
     queue_id TEXT NOT NULL REFERENCES review_queues(id) ON DELETE CASCADE,
     position INTEGER NOT NULL,
     trajectory_id TEXT NOT NULL REFERENCES trajectories(id) ON DELETE CASCADE,
     reviewer TEXT NOT NULL,
     PRIMARY KEY (queue_id, reviewer, position)
   );
   CREATE INDEX review_items_trajectory ON review_items(trajectory_id);
   CREATE TABLE share_links (
     token TEXT PRIMARY KEY,
     server TEXT NOT NULL,
     env TEXT NOT NULL,
     split TEXT NOT NULL,
     tasks_json TEXT NOT NULL,
     note TEXT,
     expires_at INTEGER,
     revoked_at INTEGER,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE share_players (
     token TEXT NOT NULL REFERENCES share_links(token) ON DELETE CASCADE,
     player TEXT NOT NULL,
     run_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (token, player)
   );`,
  // 12: typed outcomes and the attempt history of runs (docs/runs.md "Outcomes"): each attempt at
  // an episode with its outcome, worker and times, one of them counted; the episode's last outcome,
  // its number of attempts and the session its attempt plays on; tags on runs (`quality`); where a
  // living app process answers and the servers it knows (what the CLI reuses and links to). Episodes played before are one attempt each.
  `ALTER TABLE run_episodes ADD COLUMN outcome TEXT;
   ALTER TABLE run_episodes ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE run_episodes ADD COLUMN sid TEXT;
   ALTER TABLE runs ADD COLUMN tags_json TEXT;
   ALTER TABLE instances ADD COLUMN app_json TEXT;
   CREATE TABLE run_attempts (
     run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
     task_index INTEGER NOT NULL,
     repeat INTEGER NOT NULL,
     attempt INTEGER NOT NULL,
     outcome TEXT,
     stop TEXT,
     error TEXT,
     worker TEXT,
     trajectory_id TEXT,
     reward REAL,
     started_at INTEGER NOT NULL,
     ended_at INTEGER,
     counted INTEGER NOT NULL DEFAULT 0,
     job_id TEXT,
     PRIMARY KEY (run_id, task_index, repeat, attempt)
   );
   UPDATE run_episodes SET
     outcome = CASE status
       WHEN 'done' THEN CASE WHEN stop IS NULL OR stop = 'finished' THEN 'scored' ELSE 'policy_stopped' END
       WHEN 'errored' THEN CASE WHEN stop = 'timeout' THEN 'timeout' ELSE 'env_error' END
       WHEN 'cancelled' THEN 'cancelled'
       WHEN 'interrupted' THEN 'interrupted' END,
     attempts = CASE WHEN started_at IS NULL THEN 0 ELSE 1 END;
   INSERT INTO run_attempts (run_id, task_index, repeat, attempt, outcome, stop, error, worker,
       trajectory_id, reward, started_at, ended_at, counted)
     SELECT run_id, task_index, repeat, 1, outcome, stop, error, instance_id, trajectory_id, reward,
       started_at, ended_at, CASE WHEN status = 'done' THEN 1 ELSE 0 END
     FROM run_episodes WHERE started_at IS NOT NULL;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The schema version recorded in the file (0 for a new file). */
export function schemaVersion(db: Db): number {
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = db.prepare("SELECT version FROM schema_version").get() as { version: number } | undefined;
  return row?.version ?? 0;
}

/** Applies every pending migration, each in its own transaction with the version bump. */
export function migrate(db: Db, migrations: string[] = MIGRATIONS): number {
  let version = schemaVersion(db);
  if (version > migrations.length) {
    throw new Error(
      `trajectory store: the database is at schema version ${version}, newer than this build (${migrations.length})`,
    );
  }
  while (version < migrations.length) {
    const next = version + 1;
    db.transaction(() => {
      db.exec(migrations[version]);
      db.prepare("DELETE FROM schema_version").run();
      db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(next);
    })();
    version = next;
  }
  return version;
}

/** Resolves the data directory: `env`'s PLAYGROUND_DATA_DIR, default `.data/` under the working dir. */
export function dataDir(env: Env): string {
  return path.resolve(/*turbopackIgnore: true*/ settingOrDefault(env, "PLAYGROUND_DATA_DIR"));
}

/** Opens (creating if needed) and migrates the store file. */
export function openDb(file: string, migrations: string[] = MIGRATIONS): Db {
  // Owner-only (docs/architecture.md "Security"): a new data folder 0700, the file 0600 before SQLite opens it,
  // so the -wal and -shm files SQLite creates take that mode too; older files are narrowed.
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, "a", 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db, migrations);
  return db;
}
