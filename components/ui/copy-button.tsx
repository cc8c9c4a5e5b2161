"use client";

import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { Button, type ButtonSize } from "./button";

/**
 * Copies `text` to the clipboard and says so for a moment. `text` may be a function, read at the
 * click (a URL resolved against the page's origin, which the server does not know).
 */
export function CopyButton({
  text: given,
  label = "Copy",
  size = "xs",
}: {
  text: string | (() => string);
  label?: string;
  size?: ButtonSize;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);
  return (
    <Button
      variant="ghost"
      size={size}
      aria-label={copied ? "Copied" : label}
      title={label}
      onClick={async () => {
        const text = typeof given === "function" ? given() : given;
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
        } catch {
          // Clipboard blocked (insecure context): fall back to a selection the user can copy.
          window.prompt("Copy this text", text);
        }
      }}
    >
      {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
      <span className="sr-only sm:not-sr-only">{copied ? "Copied" : label}</span>
    </Button>
  );
}
