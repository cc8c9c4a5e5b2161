"use client";
// Secrets for /create: name/value rows with masked values. Held in memory only (never in storage,
// never in the URL), sent once in the /create body, then forgotten.
import { Plus, Trash2 } from "lucide-react";
import { type InputHTMLAttributes, useId } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";

export type SecretRow = { id: number; name: string; value: string };

let nextId = 1;
export function newSecretRow(): SecretRow {
  return { id: nextId++, name: "", value: "" };
}

/** The rows as the `/create` body's `secrets`, or an error naming the bad row. */
export function secretsFromRows(
  rows: SecretRow[],
): { ok: true; secrets: Record<string, string> } | { ok: false; error: string } {
  const secrets: Record<string, string> = {};
  for (const [i, r] of rows.entries()) {
    const name = r.name.trim();
    if (!name && !r.value) continue;
    if (!name) return { ok: false, error: `Secret ${i + 1} has a value but no name.` };
    if (name in secrets) return { ok: false, error: `Secret ${name} is given twice.` };
    secrets[name] = r.value;
  }
  return { ok: true, secrets };
}

/** A secret's name or value: a small label over a monospaced input. */
function SecretInput({
  label,
  ...input
}: { id: string; label: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={input.id} className="text-xs font-medium text-zinc-700 dark:text-zinc-300">
        {label}
      </label>
      <Input {...input} className="font-mono" />
    </div>
  );
}

export function SecretsEditor({
  rows,
  onChange,
}: {
  rows: SecretRow[];
  onChange: (rows: SecretRow[]) => void;
}) {
  const base = useId();
  const update = (id: number, patch: Partial<SecretRow>) =>
    onChange(rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="text-sm font-semibold">Secrets</legend>
      <p className="text-xs text-zinc-500 dark:text-zinc-400">
        Sent once in the <code className="font-mono">/create</code> body. Never stored, never shown again,
        never recorded.
      </p>
      {rows.map((r, i) => (
        <div key={r.id} className="grid grid-cols-[minmax(0,1fr)_minmax(0,1.4fr)_auto] items-end gap-2">
          <SecretInput
            id={`${base}-n${r.id}`}
            label={`Secret name ${i + 1}`}
            value={r.name}
            autoComplete="off"
            spellCheck={false}
            placeholder="API_KEY"
            onChange={(e) => update(r.id, { name: e.target.value })}
          />
          <SecretInput
            id={`${base}-v${r.id}`}
            label={`Secret value ${i + 1}`}
            type="password"
            value={r.value}
            autoComplete="new-password"
            onChange={(e) => update(r.id, { value: e.target.value })}
          />
          <Button
            size="md"
            variant="ghost"
            aria-label={`Remove secret ${i + 1}`}
            onClick={() => onChange(rows.filter((x) => x.id !== r.id))}
          >
            <Trash2 aria-hidden="true" />
          </Button>
        </div>
      ))}
      <div>
        <Button size="sm" onClick={() => onChange([...rows, newSecretRow()])}>
          <Plus aria-hidden="true" /> Add secret
        </Button>
      </div>
    </fieldset>
  );
}
