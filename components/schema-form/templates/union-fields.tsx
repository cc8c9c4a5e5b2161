"use client";
// rjsf's union fields, with one change: the options of an optional model (`anyOf [null, $ref]`)
// get a none/set choice as their selector instead of a select of two options.
import { getDefaultRegistry } from "@rjsf/core";
import type { FieldProps, UiSchema } from "@rjsf/utils";
import { deref, isPrimitive, nullableOption, type Schema } from "../schema-utils";
import { NullableChoiceWidget } from "../widgets";

const { AnyOfField: BaseAnyOfField, OneOfField: BaseOneOfField } = getDefaultRegistry().fields;

/** Options of an optional model (`anyOf [null, $ref]`) get the none/set choice as their selector. */
function withNullableChoice(props: FieldProps): FieldProps {
  const key = Array.isArray(props.schema.anyOf) ? "anyOf" : "oneOf";
  const opts = props.schema[key] as Schema[] | undefined;
  const inner = nullableOption(props.schema as Schema);
  if (!inner || !opts) return props;
  if (isPrimitive(deref(props.registry.rootSchema as Schema, inner))) return props;
  const nullIndex = opts.findIndex((o) => o !== inner);
  const uiSchema: UiSchema = {
    ...props.uiSchema,
    "ui:widget": NullableChoiceWidget,
    "ui:options": { ...(props.uiSchema?.["ui:options"] ?? {}), nullIndex },
    // Each option's own fields get the plain uiSchema, not the choice widget.
    [key]: opts.map(() => ({})),
  };
  return { ...props, uiSchema };
}

export function AnyOfField(props: FieldProps) {
  return <BaseAnyOfField {...withNullableChoice(props)} />;
}

export function OneOfField(props: FieldProps) {
  return <BaseOneOfField {...withNullableChoice(props)} />;
}
