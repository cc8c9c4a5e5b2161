"use client";
// The object field of generated forms. A map (an object with an `additionalProperties` schema,
// Pydantic's `dict[str, X]`) is drawn here as key/value rows; every other object goes to rjsf's own
// ObjectField. rjsf names a new entry `newKey` and renames a key typed twice to `key-1`, sending the
// renamed value; here the rows are kept as the user typed them (map-rows.ts): a new entry starts with
// an empty key, and an entry with no key, a key another entry (or a field) already has, or no value
// is an error on that entry, left out of the value and never sent (the form refuses to call while
// one remains).
import { getDefaultRegistry } from "@rjsf/core";
import type { FieldProps, RJSFSchema } from "@rjsf/utils";
import {
  ADDITIONAL_PROPERTY_FLAG,
  getUiOptions,
  isFormDataAvailable,
  shouldRenderOptionalField,
  toFieldPathId,
} from "@rjsf/utils";
import { X } from "lucide-react";
import { type ChangeEvent, type ReactNode, useContext, useState } from "react";
import { cn } from "@/lib/ui/cn";
import { EntryIndexContext, pathName } from "./field-names";
import { type MapRows, type RowProblem, useMapRows, valueSchemaOf } from "./map-rows";
import { isObj, type Schema, titleHint } from "./schema-utils";
import { AddButton, Group, hintClasses, iconButton } from "./templates/parts";
import { FormUiContext, type MapRow } from "./validation";
import { inputClasses } from "./widgets";

const { ObjectField: BaseObjectField } = getDefaultRegistry().fields;

/** Whether a (resolved) object schema is a map: its `additionalProperties` is a schema or `true`. */
export function isMapSchema(schema: Schema): boolean {
  const ap = schema.additionalProperties;
  return ap === true || (isObj(ap) && schema.patternProperties === undefined);
}

type Sub = Record<string, unknown> | undefined;

/** What a map passes on to the fields inside it, as rjsf's ObjectField does. */
function inherited(p: FieldProps) {
  return {
    onBlur: p.onBlur,
    onFocus: p.onFocus,
    registry: p.registry,
    disabled: p.disabled,
    readonly: p.readonly,
    hideError: p.hideError,
  };
}

/** The schema's own properties of a map that has some, each rjsf's field. */
function FixedFields({ props, schema, fixed }: { props: FieldProps; schema: Schema; fixed: string[] }) {
  const { registry, fieldPathId, formData, uiSchema, errorSchema } = props;
  const { SchemaField } = registry.fields;
  const own = isObj(schema.properties) ? schema.properties : {};
  const data = isObj(formData) ? formData : undefined;
  return fixed.map((k) => (
    <div key={k}>
      <SchemaField
        name={k}
        required={Array.isArray(schema.required) && (schema.required as string[]).includes(k)}
        schema={own[k] as RJSFSchema}
        uiSchema={(uiSchema as Sub)?.[k] as FieldProps["uiSchema"]}
        errorSchema={(errorSchema as Sub)?.[k] as FieldProps["errorSchema"]}
        fieldPathId={toFieldPathId(k, registry.globalFormOptions, fieldPathId.path)}
        formData={data?.[k]}
        onChange={props.onChange}
        {...inherited(props)}
      />
    </div>
  ));
}

/** A row's key input: a repeated key shows its error at once, a missing one once left or after a call. */
function EntryKey({
  id,
  row,
  name,
  problem,
  off,
  onRename,
}: {
  id: string;
  row: MapRow;
  name: string;
  problem: RowProblem;
  off: boolean;
  onRename: (key: string) => void;
}) {
  const ui = useContext(FormUiContext);
  const [touched, setTouched] = useState(false);
  const errorId = `${id}__error`;
  const keyProblem = problem?.kind === "key" ? problem : null;
  const show = keyProblem !== null && (row.key !== "" || touched || ui.attempted);
  return (
    <div className="w-2/5 shrink-0">
      <label htmlFor={id} className="sr-only">
        {name} key
      </label>
      <input
        id={id}
        type="text"
        value={row.key}
        disabled={off}
        placeholder="key"
        autoComplete="off"
        spellCheck={false}
        onChange={(e: ChangeEvent<HTMLInputElement>) => onRename(e.target.value)}
        onBlur={() => setTouched(true)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.nativeEvent.isComposing && !e.ctrlKey && !e.metaKey) {
            e.preventDefault();
            setTouched(true);
          }
        }}
        aria-invalid={show || undefined}
        aria-describedby={show ? errorId : undefined}
        className={cn(inputClasses, "h-9 font-mono")}
      />
      {show && (
        <p id={errorId} className="mt-0.5 text-xs font-medium text-red-700 dark:text-red-400">
          {keyProblem.message}
        </p>
      )}
    </div>
  );
}

/** One entry: its key, its value (rjsf's field for the value schema), and its remove button. */
function MapEntry({
  props,
  schema,
  map,
  index,
}: {
  props: FieldProps;
  schema: Schema;
  map: MapRows;
  index: number;
}) {
  const { registry, fieldPathId, uiSchema, errorSchema } = props;
  const { SchemaField } = registry.fields;
  const ui = useContext(FormUiContext);
  const row = map.rows[index]!;
  const problem = map.problems[index] ?? null;
  const path = fieldPathId.path;
  const name = pathName([...path, index]);
  // Usable rows are named by their key (errors of the value arrive there); others by position.
  const segment = problem?.kind === "key" ? `#entry${row.id}` : row.key;
  const entryPath = [...path, segment];
  const valueErrors =
    problem?.kind === "value" && ui.showsErrors(entryPath)
      ? { __errors: ["needs a value"] }
      : problem === null
        ? (errorSchema as Sub)?.[row.key]
        : undefined;
  const off = !!(props.disabled || props.readonly);
  return (
    <div className="flex flex-col gap-1">
      <div className="flex items-start gap-2">
        <EntryKey
          id={`${fieldPathId.$id}__entry${row.id}__key`}
          row={row}
          name={name}
          problem={problem}
          off={off}
          onRename={(key) => map.rename(row.id, key)}
        />
        <EntryIndexContext.Provider value={index}>
          <SchemaField
            name={segment}
            required={false}
            schema={{ ...valueSchemaOf(schema, row.value), [ADDITIONAL_PROPERTY_FLAG]: true } as RJSFSchema}
            uiSchema={(uiSchema as Sub)?.additionalProperties as FieldProps["uiSchema"]}
            errorSchema={valueErrors as FieldProps["errorSchema"]}
            fieldPathId={toFieldPathId(segment, registry.globalFormOptions, path)}
            formData={row.value}
            onChange={(value, at) => map.setValue(row.id, value, at ?? entryPath, entryPath)}
            {...inherited(props)}
          />
        </EntryIndexContext.Provider>
        <button
          type="button"
          className={iconButton}
          disabled={off}
          onClick={() => map.remove(row.id)}
          title="Remove this entry"
        >
          <X aria-hidden="true" />
          <span className="sr-only">Remove {name}</span>
        </button>
      </div>
    </div>
  );
}

function MapField(props: FieldProps) {
  const { formData, fieldPathId, registry, required, uiSchema } = props;
  const schema = registry.schemaUtils.retrieveSchema(props.schema, formData) as Schema;
  const path = fieldPathId.path;
  const own = isObj(schema.properties) ? schema.properties : {};
  // The schema's own properties (rjsf adds a map's existing keys to `properties`, flagged).
  const fixed = Object.keys(own).filter((k) => !(isObj(own[k]) && ADDITIONAL_PROPERTY_FLAG in own[k]));
  const map = useMapRows({
    path,
    schema,
    fixed,
    data: isObj(formData) ? formData : undefined,
    onChange: props.onChange,
  });

  // An optional map that is not set: its Set control only.
  const optional = shouldRenderOptionalField(registry, schema as RJSFSchema, !!required, uiSchema);
  const last = path[path.length - 1];
  const frame = (body: ReactNode) =>
    path.length === 0 ? (
      <div className="flex min-w-0 flex-col gap-3">{body}</div>
    ) : (
      <Group
        id={fieldPathId.$id}
        path={path}
        required={required}
        hint={titleHint(typeof last === "string" ? last : "", schema.title)}
        control={
          optional ? (
            <registry.fields.OptionalDataControlsField {...props} schema={schema as RJSFSchema} />
          ) : undefined
        }
      >
        {body}
      </Group>
    );
  if (optional && !isFormDataAvailable(formData)) return frame(null);

  return frame(
    <>
      {typeof schema.description === "string" && schema.description.trim() && (
        <p className="whitespace-pre-wrap text-xs text-zinc-600 dark:text-zinc-400">{schema.description}</p>
      )}
      <FixedFields props={props} schema={schema} fixed={fixed} />
      <div className="flex flex-col gap-2">
        {map.rows.length > 0 && (
          <div aria-hidden="true" className={cn("flex gap-2 pr-9", hintClasses)}>
            <span className="w-2/5 shrink-0">key</span>
            <span>value</span>
          </div>
        )}
        {map.rows.map((row, i) => (
          <MapEntry key={row.id} props={props} schema={schema} map={map} index={i} />
        ))}
        {map.rows.length === 0 && <p className="text-xs italic text-zinc-500">No entries.</p>}
        {getUiOptions(uiSchema).addable !== false && (
          <div>
            <AddButton
              label="Add entry"
              path={path}
              onClick={map.add}
              disabled={props.disabled || props.readonly}
            />
          </div>
        )}
      </div>
    </>,
  );
}

/** rjsf's ObjectField for objects; maps get the rows above. */
export function ObjectField(props: FieldProps) {
  const schema = props.registry.schemaUtils.retrieveSchema(props.schema, props.formData) as Schema;
  if (isMapSchema(schema)) return <MapField {...props} />;
  return <BaseObjectField {...props} />;
}
