// The PostgreSQL schema as numbered migrations (applied at start by ./db.ts; never edit a
// shipped one). Columns mirror the SQLite store's (../sqlite/db.ts), so both read rows alike: times and rewards
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
  // 2: runs (lib/runs) beside trajectories, as in SQLite (../sqlite/db.ts, migrations 7 and 8): a run's
  // episodes are trajectories tagged with it; the tool specs an episode was played with (stored
  // once per distinct set); who chose each call (agent) and how a policy stopped; the recording
  // processes and their leases. The replica that wrote a row is now its instance, as in SQLite.
  `ALTER TABLE trajectories RENAME COLUMN replica TO instance_id;
   ALTER TABLE steps RENAME COLUMN replica TO instance_id;
   ALTER TABLE trajectories ADD COLUMN run_id TEXT, ADD COLUMN run_task INTEGER,
     ADD COLUMN run_repeat INTEGER, ADD COLUMN tools_hash TEXT, ADD COLUMN agent_end_json TEXT;
   CREATE INDEX trajectories_run ON trajectories (run_id, run_task, run_repeat) WHERE run_id IS NOT NULL;
   CREATE INDEX trajectories_instance ON trajectories (instance_id) WHERE end_reason IS NULL;
   ALTER TABLE steps ADD COLUMN agent_json TEXT;
   CREATE TABLE tool_sets (hash TEXT PRIMARY KEY, tools_json TEXT NOT NULL);
   CREATE TABLE instances (
     id TEXT PRIMARY KEY,
     pid INTEGER NOT NULL,
     host TEXT NOT NULL,
     started_at DOUBLE PRECISION NOT NULL,
     beat_at DOUBLE PRECISION NOT NULL
   );
   CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     status TEXT NOT NULL,
     server TEXT NOT NULL,
     env TEXT NOT NULL,
     split TEXT NOT NULL,
     repeats INTEGER NOT NULL,
     episodes INTEGER NOT NULL,
     config_json TEXT NOT NULL,
     created_at DOUBLE PRECISION NOT NULL,
     started_at DOUBLE PRECISION,
     ended_at DOUBLE PRECISION,
     error TEXT,
     instance_id TEXT
   );
   CREATE INDEX runs_created ON runs (created_at, seq);
   CREATE TABLE run_episodes (
     run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
     task_index INTEGER NOT NULL,
     repeat INTEGER NOT NULL,
     status TEXT NOT NULL DEFAULT 'pending',
     trajectory_id TEXT,
     reward DOUBLE PRECISION,
     finished SMALLINT,
     turns INTEGER,
     steps INTEGER,
     duration_ms DOUBLE PRECISION,
     prompt_tokens INTEGER,
     completion_tokens INTEGER,
     error TEXT,
     stop TEXT,
     started_at DOUBLE PRECISION,
     ended_at DOUBLE PRECISION,
     instance_id TEXT,
     PRIMARY KEY (run_id, task_index, repeat)
   );
   CREATE INDEX run_episodes_status ON run_episodes (run_id, status);
   REVOKE ALL ON tool_sets, instances, runs, run_episodes FROM PUBLIC;`,
  // 3: the protocol log, as in SQLite (../sqlite/db.ts, migration 9): every request of an episode's session
  // with its answer, numbered per trajectory within caps counted on the trajectory; and where a step
  // came from when it replays a logged call.
  `CREATE TABLE exchanges (
     trajectory_id TEXT NOT NULL REFERENCES trajectories (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     at DOUBLE PRECISION NOT NULL,
     ms DOUBLE PRECISION NOT NULL,
     method TEXT NOT NULL,
     path TEXT NOT NULL,
     status INTEGER NOT NULL,
     request_headers_json TEXT NOT NULL,
     request_body TEXT NOT NULL,
     request_size BIGINT NOT NULL,
     request_truncated SMALLINT NOT NULL DEFAULT 0,
     response_type TEXT NOT NULL,
     response_body TEXT NOT NULL,
     response_size BIGINT NOT NULL,
     response_truncated SMALLINT NOT NULL DEFAULT 0,
     PRIMARY KEY (trajectory_id, seq)
   );
   ALTER TABLE trajectories ADD COLUMN exchanges_count INTEGER NOT NULL DEFAULT 0,
     ADD COLUMN exchanges_chars BIGINT NOT NULL DEFAULT 0, ADD COLUMN exchanges_dropped INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE steps ADD COLUMN origin_json TEXT;
   REVOKE ALL ON exchanges FROM PUBLIC;`,
  // 4: the client that played an episode, as in SQLite (../sqlite/db.ts, migration 10).
  `ALTER TABLE trajectories ADD COLUMN client_json TEXT;`,
  // 5: reviews, as in SQLite (../sqlite/db.ts, migration 11): label sets per environment, people's
  // labels on episodes and steps (step 0 = the episode), review queues and their assignments, share
  // links and the runs of their players.
  `CREATE TABLE label_sets (
     id TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     server TEXT NOT NULL,
     env TEXT NOT NULL,
     name TEXT NOT NULL,
     target TEXT NOT NULL,
     schema_json TEXT NOT NULL,
     verdict TEXT,
     created_at DOUBLE PRECISION NOT NULL
   );
   CREATE INDEX label_sets_env ON label_sets (server, env);
   CREATE TABLE labels (
     label_set_id TEXT NOT NULL REFERENCES label_sets (id) ON DELETE CASCADE,
     trajectory_id TEXT NOT NULL REFERENCES trajectories (id) ON DELETE CASCADE,
     step INTEGER NOT NULL,
     reviewer TEXT NOT NULL,
     value_json TEXT NOT NULL,
     created_at DOUBLE PRECISION NOT NULL,
     updated_at DOUBLE PRECISION NOT NULL,
     PRIMARY KEY (label_set_id, trajectory_id, step, reviewer)
   );
   CREATE INDEX labels_trajectory ON labels (trajectory_id);
   CREATE TABLE review_queues (
     id TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     name TEXT NOT NULL,
     label_set_id TEXT NOT NULL REFERENCES label_sets (id) ON DELETE CASCADE,
     run_id TEXT,
     blind SMALLINT NOT NULL,
     success_at DOUBLE PRECISION NOT NULL,
     reviewers_json TEXT NOT NULL,
     created_at DOUBLE PRECISION NOT NULL
   );
   CREATE TABLE review_items (
     queue_id TEXT NOT NULL REFERENCES review_queues (id) ON DELETE CASCADE,
     position INTEGER NOT NULL,
     trajectory_id TEXT NOT NULL REFERENCES trajectories (id) ON DELETE CASCADE,
     reviewer TEXT NOT NULL,
     PRIMARY KEY (queue_id, reviewer, position)
   );
   CREATE INDEX review_items_trajectory ON review_items (trajectory_id);
   CREATE TABLE share_links (
     token TEXT PRIMARY KEY,
     seq BIGSERIAL NOT NULL,
     server TEXT NOT NULL,
     env TEXT NOT NULL,
     split TEXT NOT NULL,
     tasks_json TEXT NOT NULL,
     note TEXT,
     expires_at DOUBLE PRECISION,
     revoked_at DOUBLE PRECISION,
     created_at DOUBLE PRECISION NOT NULL
   );
   CREATE TABLE share_players (
     token TEXT NOT NULL REFERENCES share_links (token) ON DELETE CASCADE,
     seq BIGSERIAL NOT NULL,
     player TEXT NOT NULL,
     run_id TEXT NOT NULL,
     created_at DOUBLE PRECISION NOT NULL,
     PRIMARY KEY (token, player)
   );
   REVOKE ALL ON label_sets, labels, review_queues, review_items, share_links, share_players FROM PUBLIC;`,
  // 6: typed outcomes and the attempt history of runs, as in SQLite (../sqlite/db.ts, migration 12);
  // here an attempt also names the queue's job that played it (lib/runs/queue.ts).
  `ALTER TABLE run_episodes ADD COLUMN outcome TEXT, ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0,
     ADD COLUMN sid TEXT;
   ALTER TABLE runs ADD COLUMN tags_json TEXT;
   ALTER TABLE instances ADD COLUMN app_json TEXT;
   CREATE TABLE run_attempts (
     run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
     task_index INTEGER NOT NULL,
     repeat INTEGER NOT NULL,
     attempt INTEGER NOT NULL,
     outcome TEXT,
     stop TEXT,
     error TEXT,
     worker TEXT,
     trajectory_id TEXT,
     reward DOUBLE PRECISION,
     started_at DOUBLE PRECISION NOT NULL,
     ended_at DOUBLE PRECISION,
     counted SMALLINT NOT NULL DEFAULT 0,
     job_id TEXT,
     PRIMARY KEY (run_id, task_index, repeat, attempt)
   );
   CREATE INDEX run_attempts_playing ON run_attempts (worker) WHERE outcome IS NULL;
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
     FROM run_episodes WHERE started_at IS NOT NULL;
   REVOKE ALL ON run_attempts FROM PUBLIC;`,
  // 7: runs played by a queue's workers (lib/runs/queue.ts): the capacity they share (slots held per
  // resource, 429 pauses, requests of the last minute, waiters), and each worker's word on whether it
  // can play a run (why a run waits).
  `CREATE TABLE run_capacity_holds (
     holder TEXT NOT NULL,
     resource TEXT NOT NULL,
     worker TEXT NOT NULL,
     at DOUBLE PRECISION NOT NULL,
     PRIMARY KEY (holder, resource)
   );
   CREATE INDEX run_capacity_holds_resource ON run_capacity_holds (resource);
   CREATE TABLE run_capacity_pauses (resource TEXT PRIMARY KEY, until DOUBLE PRECISION NOT NULL);
   CREATE TABLE run_capacity_requests (resource TEXT NOT NULL, at DOUBLE PRECISION NOT NULL);
   CREATE INDEX run_capacity_requests_at ON run_capacity_requests (resource, at);
   CREATE TABLE run_capacity_waiting (
     resource TEXT NOT NULL,
     worker TEXT NOT NULL,
     n INTEGER NOT NULL,
     PRIMARY KEY (resource, worker)
   );
   CREATE TABLE run_workers (
     run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
     worker TEXT NOT NULL,
     can_play SMALLINT NOT NULL,
     reason TEXT,
     at DOUBLE PRECISION NOT NULL,
     PRIMARY KEY (run_id, worker)
   );
   REVOKE ALL ON run_capacity_holds, run_capacity_pauses, run_capacity_requests, run_capacity_waiting,
     run_workers FROM PUBLIC;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
