// The form controls every page shares: the text input, the select, their label, error and hint.
import type { InputHTMLAttributes, LabelHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";
import { cn } from "@/lib/ui/cn";

export const inputClasses =
  "h-8 w-full rounded-md border border-zinc-300 bg-white px-2.5 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-400 focus-visible:border-indigo-500 aria-[invalid=true]:border-red-500 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-500";

export function Input({ className, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={cn(inputClasses, className)} {...props} />;
}

/** A choice a Select offers: a value shown as itself, or a value and its words. */
export type SelectOption = string | { value: string; label: ReactNode };

/**
 * A native select styled as the inputs, its options from a list (after `children`, the options that
 * lead it: a placeholder, the current value when the list lacks it), the chosen value handed over.
 */
export function Select({
  options,
  onValueChange,
  className,
  children,
  ...props
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, "onChange"> & {
  options: readonly SelectOption[];
  onValueChange: (value: string) => void;
}) {
  return (
    <select
      className={cn(inputClasses, className)}
      onChange={(e) => onValueChange(e.target.value)}
      {...props}
    >
      {children}
      {options.map((o) =>
        typeof o === "string" ? (
          <option key={o} value={o}>
            {o}
          </option>
        ) : (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ),
      )}
    </select>
  );
}

export function Label({ className, htmlFor, children, ...props }: LabelHTMLAttributes<HTMLLabelElement>) {
  return (
    <label
      htmlFor={htmlFor}
      className={cn("text-xs font-medium text-zinc-700 dark:text-zinc-300", className)}
      {...props}
    >
      {children}
    </label>
  );
}

/** An inline field error, announced to screen readers and referenced by aria-describedby. */
export function FieldError({ id, children }: { id: string; children?: ReactNode }) {
  if (!children) return null;
  return (
    <p id={id} role="alert" className="text-xs text-red-600 dark:text-red-400">
      {children}
    </p>
  );
}

export function FieldHint({ id, children }: { id?: string; children: ReactNode }) {
  return (
    <p id={id} className="text-xs text-zinc-500 dark:text-zinc-400">
      {children}
    </p>
  );
}
