"use client";
// The JSON tab's editor: CodeMirror 6 with JSON syntax highlighting, bracket matching and closing,
// a parse error marked where it is (gutter and underline at the offending character), completion
// of property names and enum values from the tool's schema, and the app's light and dark colours
// (CSS variables in app/globals.css). Its text is the caller's: every edit is reported as typed,
// and a new `value` from outside replaces the text only when it differs. Tab moves focus on (it
// does not indent), so the editor never traps the keyboard; Ctrl/Cmd+Enter calls the tool.
// Loaded as its own chunk, only when the JSON tab is opened (tool-form.tsx).
import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
} from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, linter, lintGutter, lintKeymap } from "@codemirror/lint";
import { EditorState, Prec } from "@codemirror/state";
import { EditorView, highlightActiveLine, keymap, lineNumbers, placeholder } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { useEffect, useRef } from "react";
import type { JsonObject } from "@/lib/ors/protocol";
import { cn } from "@/lib/ui/cn";
import { jsonSchemaCompletion } from "./json-completion";
import { jsonErrorOffset, parseJsonObject } from "./json-text";

const highlight = HighlightStyle.define([
  { tag: tags.propertyName, class: "cmj-property" },
  { tag: tags.string, class: "cmj-string" },
  { tag: tags.number, class: "cmj-number" },
  { tag: tags.bool, class: "cmj-bool" },
  { tag: tags.null, class: "cmj-null" },
  { tag: [tags.brace, tags.squareBracket, tags.separator], class: "cmj-punctuation" },
]);

/** Diagnostics of a JSON object's text: the first syntax error at its offset, or a non-object value. */
export function jsonDiagnostics(text: string): Diagnostic[] {
  const parsed = parseJsonObject(text);
  if (parsed.ok) return [];
  const offset = jsonErrorOffset(text);
  if (offset >= 0) {
    const to = Math.min(text.length, offset + 1);
    return [{ from: Math.min(offset, text.length), to, severity: "error", message: parsed.message }];
  }
  return [{ from: 0, to: text.length, severity: "error", message: parsed.message }];
}

export interface JsonEditorProps {
  value: string;
  onChange: (text: string) => void;
  /** Ctrl/Cmd+Enter. */
  onSubmit: () => void;
  /** The tool's input schema, for completion. */
  schema: JsonObject;
  labelledBy: string;
  describedBy?: string;
  invalid?: boolean;
  className?: string;
}

export function JsonEditor({
  value,
  onChange,
  onSubmit,
  schema,
  labelledBy,
  describedBy,
  invalid,
  className,
}: JsonEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The latest callbacks, read by the editor's listeners (created once).
  const latest = useRef({ onChange, onSubmit });
  latest.current = { onChange, onSubmit };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is created once per schema; `value` updates it below
  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          Prec.highest(
            keymap.of([
              {
                key: "Mod-Enter",
                run: () => {
                  latest.current.onSubmit();
                  return true;
                },
              },
            ]),
          ),
          lineNumbers(),
          history(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          highlightActiveLine(),
          json(),
          syntaxHighlighting(highlight),
          autocompletion({ override: [jsonSchemaCompletion(schema)], icons: false }),
          linter((v) => jsonDiagnostics(v.state.doc.toString()), { delay: 150 }),
          lintGutter(),
          placeholder("{}"),
          keymap.of([
            ...closeBracketsKeymap,
            ...defaultKeymap,
            ...historyKeymap,
            ...completionKeymap,
            ...lintKeymap,
          ]),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({
            "aria-labelledby": labelledBy,
            ...(describedBy ? { "aria-describedby": describedBy } : {}),
            "aria-multiline": "true",
          }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) latest.current.onChange(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, [schema, labelledBy, describedBy]);

  // A value from outside (not what the editor reported) replaces the text.
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const current = v.state.doc.toString();
    if (current !== value) v.dispatch({ changes: { from: 0, to: current.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.contentDOM.setAttribute("aria-invalid", invalid ? "true" : "false");
  }, [invalid]);

  return (
    <div
      ref={host}
      className={cn(
        "ors-json-editor overflow-hidden rounded-md border bg-white text-[13px] shadow-xs dark:bg-zinc-900",
        invalid ? "border-red-500 dark:border-red-400" : "border-zinc-300 dark:border-zinc-700",
        className,
      )}
    />
  );
}
