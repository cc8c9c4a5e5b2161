"use client";
// The pieces the templates share: a nested group's frame (a fieldset named by its field), the add
// button, the required star, a description, and the classes of labels, hints and small buttons.
import type { FieldPathList } from "@rjsf/utils";
import { Plus } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "@/lib/ui/cn";
import { FieldName, pathName } from "../field-names";

export const labelClasses = "font-mono text-xs font-medium text-zinc-800 dark:text-zinc-200";
export const hintClasses = "text-[11px] text-zinc-500 dark:text-zinc-400";
const descriptionClasses = "whitespace-pre-wrap text-xs text-zinc-600 dark:text-zinc-400";
export const smallButton =
  "inline-flex h-6 items-center gap-1 rounded-md border border-zinc-300 bg-white px-2 text-xs font-medium text-zinc-700 shadow-xs hover:bg-zinc-50 disabled:cursor-not-allowed disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800 [&_svg]:size-3.5";
export const iconButton =
  "inline-flex size-7 items-center justify-center rounded-md text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900 disabled:cursor-not-allowed disabled:opacity-40 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100 [&_svg]:size-3.5";

/** "Add entry" / "Add item"; screen readers also hear which field it adds to. */
export function AddButton({
  label,
  path,
  onClick,
  disabled,
}: {
  label: string;
  path: FieldPathList;
  onClick: () => void;
  disabled?: boolean;
}) {
  return (
    <button type="button" className={smallButton} onClick={onClick} disabled={disabled}>
      <Plus aria-hidden="true" />
      {label}
      {path.length > 0 && (
        <>
          {" "}
          <span className="sr-only">to {pathName(path)}</span>
        </>
      )}
    </button>
  );
}

export function Star({ show }: { show?: boolean }) {
  if (!show) return null;
  return (
    <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400">
      *
    </span>
  );
}

/** A description as prepareSchema left it (reflowed: docstring wraps joined, paragraphs kept). */
export function Description({ id, text }: { id?: string; text: unknown }) {
  if (typeof text !== "string" || !text.trim()) return null;
  return (
    <p id={id} className={descriptionClasses}>
      {text}
    </p>
  );
}

/**
 * A nested object or array: a fieldset named by its legend's field name only (its model's title
 * and its constraints describe it; an add/remove control sits beside them).
 */
export function Group({
  id,
  path,
  required,
  hint,
  notes = [],
  control,
  children,
}: {
  id: string;
  path: (string | number)[];
  required?: boolean;
  hint?: string;
  notes?: string[];
  control?: ReactNode;
  children: ReactNode;
}) {
  const nameId = `${id}__name`;
  const hintId = `${id}__hint`;
  const hints = hint ? [hint, ...notes] : notes;
  return (
    <fieldset
      aria-labelledby={nameId}
      aria-describedby={hints.length ? hintId : undefined}
      className="flex min-w-0 flex-col gap-3 rounded-md border border-zinc-200 px-3 pt-1 pb-3 dark:border-zinc-800"
    >
      <legend className="flex w-full flex-wrap items-baseline gap-x-2 px-1">
        <span id={nameId} className={labelClasses}>
          <FieldName path={path} />
          <Star show={required && typeof path[path.length - 1] !== "number"} />
        </span>
        {hints.length > 0 && (
          <span id={hintId} className={cn("flex flex-wrap gap-x-2", hintClasses)}>
            {hints.map((h) => (
              <span key={h}>{h}</span>
            ))}
          </span>
        )}
        {control && <span className="ml-auto self-center">{control}</span>}
      </legend>
      {children}
    </fieldset>
  );
}
