"use client";

// "Add server": name + ORS base URL + optional API key (masked). Errors show inline, under the
// field they concern: first the client-side checks, then the registry's own `detail`.
import { Plus } from "lucide-react";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { FieldError, FieldHint, Input, Label } from "@/components/ui/input";
import { ApiError } from "@/lib/ui/api-error";
import { useAddServer } from "@/lib/ui/queries";
import { type AddServerInput, validateServerInput } from "@/lib/ui/servers-api";

type Errors = Partial<Record<keyof AddServerInput | "form", string>>;

export function AddServerForm({
  existing,
  onAdded,
}: {
  existing: string[];
  onAdded?: (name: string) => void;
}) {
  const id = useId();
  const add = useAddServer();
  const [values, setValues] = useState<AddServerInput>({ name: "", url: "", apiKey: "", idleMinutes: "" });
  const [errors, setErrors] = useState<Errors>({});

  const set = (k: keyof AddServerInput) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setValues((v) => ({ ...v, [k]: e.target.value }));
    if (errors[k] || errors.form) setErrors((er) => ({ ...er, [k]: undefined, form: undefined }));
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const input = {
      name: values.name.trim(),
      url: values.url.trim(),
      apiKey: values.apiKey?.trim() || undefined,
      idleMinutes: values.idleMinutes?.trim() || undefined,
    };
    const found = validateServerInput(input, existing);
    if (Object.keys(found).length > 0) {
      setErrors(found);
      const first = (["name", "url", "apiKey", "idleMinutes"] as const).find((k) => found[k]);
      if (first) document.getElementById(`${id}-${first}`)?.focus();
      return;
    }
    try {
      await add.mutateAsync(input);
      setValues({ name: "", url: "", apiKey: "", idleMinutes: "" });
      setErrors({});
      onAdded?.(input.name);
    } catch (err) {
      const detail = err instanceof ApiError ? err.detail : (err as Error).message;
      // Put the registry's answer under the field it is about when it says so.
      const lower = detail.toLowerCase();
      if (lower.includes("name")) setErrors({ name: detail });
      else if (lower.includes("url") || lower.includes("address") || lower.includes("host"))
        setErrors({ url: detail });
      else setErrors({ form: detail });
    }
  };

  const field = (k: keyof AddServerInput) => ({
    id: `${id}-${k}`,
    "aria-invalid": errors[k] ? true : undefined,
    "aria-describedby": errors[k] ? `${id}-${k}-error` : `${id}-${k}-hint`,
    value: values[k] ?? "",
    onChange: set(k),
  });

  // A field: its label, its input, and under it its error, else its hint.
  const block = (k: keyof AddServerInput, label: ReactNode, input: ReactNode, hint: string) => (
    <div className="space-y-1">
      <Label htmlFor={`${id}-${k}`}>{label}</Label>
      {input}
      {errors[k] ? (
        <FieldError id={`${id}-${k}-error`}>{errors[k]}</FieldError>
      ) : (
        <FieldHint id={`${id}-${k}-hint`}>{hint}</FieldHint>
      )}
    </div>
  );
  return (
    <form noValidate onSubmit={onSubmit} aria-label="Add server" className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-[10rem_1fr_12rem_9rem]">
        {block(
          "name",
          "Name",
          <Input
            {...field("name")}
            placeholder="py"
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
          />,
          "Lowercase, used in URLs",
        )}
        {block(
          "url",
          "URL",
          <Input
            {...field("url")}
            type="url"
            placeholder="http://127.0.0.1:8080"
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
          />,
          "The server's ORS base URL (loopback by default)",
        )}
        {block(
          "apiKey",
          <>
            API key <span className="font-normal text-zinc-500 dark:text-zinc-400">(optional)</span>
          </>,
          <Input {...field("apiKey")} type="password" autoComplete="off" placeholder="••••••" />,
          "Sent only to this server as X-API-Key",
        )}
        {block(
          "idleMinutes",
          <>
            Idle limit <span className="font-normal text-zinc-500 dark:text-zinc-400">(min, optional)</span>
          </>,
          <Input {...field("idleMinutes")} inputMode="decimal" placeholder="15" autoComplete="off" />,
          "Its sessions' limit, for the countdown",
        )}
      </div>
      {errors.form && <FieldError id={`${id}-form-error`}>{errors.form}</FieldError>}
      <Button type="submit" variant="primary" size="sm" disabled={add.isPending}>
        <Plus aria-hidden="true" />
        {add.isPending ? "Adding…" : "Add server"}
      </Button>
    </form>
  );
}
