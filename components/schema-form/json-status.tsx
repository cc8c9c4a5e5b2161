// The status line of a tool form's JSON tab, announced politely as the user types: invalid JSON;
// keys an object's `additionalProperties: false` refuses (checked as typed, not only on Call); the
// errors of the last refused call; keys the form has no field for (kept and sent as typed); map
// entries of the form that are not in this value (no key yet, a repeated key); else that the form
// shows the same value.

/** Key paths in code type, comma-separated. */
function KeyList({ keys }: { keys: readonly string[] }) {
  return (
    <>
      {keys.map((k, i) => (
        <span key={k}>
          {i > 0 && ", "}
          <code className="font-mono">{k}</code>
        </span>
      ))}
    </>
  );
}

export function JsonStatus({
  id,
  invalid,
  refused,
  hidden,
  errors,
  leftBehind,
}: {
  id: string;
  /** Why the text is not a JSON object, or null. */
  invalid: string | null;
  refused: readonly string[];
  hidden: readonly string[];
  errors: readonly string[];
  leftBehind: readonly string[];
}) {
  return (
    <div id={id} className="flex flex-col gap-1 text-xs" aria-live="polite">
      {invalid !== null ? (
        <p className="text-red-600 dark:text-red-400">Invalid JSON: {invalid}</p>
      ) : (
        <>
          {refused.length > 0 && (
            <p className="text-red-600 dark:text-red-400">
              Not allowed ({refused.length === 1 ? "its object sets" : "their objects set"}{" "}
              <code className="font-mono">additionalProperties: false</code>; the call would be refused):{" "}
              <KeyList keys={refused} />.
            </p>
          )}
          {errors.length > 0 && (
            <ul className="list-disc pl-5 text-red-600 dark:text-red-400">
              {errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          )}
          {hidden.length > 0 && (
            <p className="text-amber-800 dark:text-amber-300">
              The form has no field for <KeyList keys={hidden} />:{" "}
              {hidden.length === 1 ? "it is" : "they are"} kept and sent as typed.
            </p>
          )}
          {leftBehind.length > 0 && (
            <p className="text-amber-800 dark:text-amber-300">
              Not in this value (the form's entries that cannot be sent yet): {leftBehind.join("; ")}.
            </p>
          )}
          {refused.length === 0 && errors.length === 0 && hidden.length === 0 && (
            <p className="text-zinc-500 dark:text-zinc-400">
              Valid JSON object; the form shows the same value.
            </p>
          )}
        </>
      )}
    </div>
  );
}
