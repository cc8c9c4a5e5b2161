// The registry of the generated forms' templates, as rjsf's themes keep theirs (one module a
// template, one object naming them): theme.tsx lays it over the shadcn theme's own.
import type { TemplatesType } from "@rjsf/utils";
import { BaseInputTemplate } from "../widgets";
import { ArrayFieldItemButtonsTemplate, ArrayFieldItemTemplate, ArrayFieldTemplate } from "./array-templates";
import { FieldTemplate, WrapIfAdditionalTemplate } from "./field-template";
import { ObjectFieldTemplate } from "./object-template";
import {
  FieldErrorTemplate,
  MultiSchemaFieldTemplate,
  OptionalDataControlsTemplate,
} from "./status-templates";

export const templates = {
  FieldTemplate,
  ObjectFieldTemplate,
  ArrayFieldTemplate,
  ArrayFieldItemTemplate,
  ArrayFieldItemButtonsTemplate,
  FieldErrorTemplate,
  MultiSchemaFieldTemplate,
  OptionalDataControlsTemplate,
  WrapIfAdditionalTemplate,
  BaseInputTemplate,
} satisfies Partial<TemplatesType>;
