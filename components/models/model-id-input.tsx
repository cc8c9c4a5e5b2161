"use client";
// The model id of an endpoint as a combobox that still takes free text: a native input with the
// ids the endpoint lists as its suggestions (useModelChoice picks, remembers and offers them), and
// a line that says how many it lists, that it is asking, or why it could not.
import type { InputHTMLAttributes } from "react";
import { Input } from "@/components/ui/input";
import type { ModelChoice } from "@/lib/ui/model-choice";

export function ModelIdInput({
  id,
  choice,
  ...props
}: { id: string; choice: ModelChoice } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "value" | "onChange" | "list"
>) {
  const listId = `${id}-ids`;
  return (
    <>
      <Input
        {...props}
        id={id}
        list={listId}
        autoComplete="off"
        spellCheck={false}
        placeholder={choice.listing ? "listing the endpoint's models…" : "a model id"}
        value={choice.model}
        onChange={(e) => choice.setModel(e.target.value)}
      />
      <datalist id={listId}>
        {choice.ids.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
    </>
  );
}

/** What the endpoint listed, for the field's hint. */
export function modelListHint(choice: ModelChoice): string | undefined {
  if (choice.listError) return `could not list its models (${choice.listError}); type an id`;
  if (choice.listing && choice.ids.length === 0) return "listing the endpoint's models…";
  if (choice.ids.length)
    return `${choice.ids.length} model${choice.ids.length === 1 ? "" : "s"} listed by the endpoint`;
  return undefined;
}
