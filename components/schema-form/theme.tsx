"use client";
// The generated forms' theme: rjsf's shadcn theme with this folder's registries of templates
// (templates/), widgets (widgets.tsx) and fields (the map field, the unions' none/set choice). Its
// searchable select (cmdk + a dialog) is not bundled: enums and union options use a native
// <select> with a real <label>.
import { withTheme } from "@rjsf/core";
import CheckboxesWidget from "@rjsf/shadcn/lib/CheckboxesWidget/CheckboxesWidget.js";
import RadioWidget from "@rjsf/shadcn/lib/RadioWidget/RadioWidget.js";
import RangeWidget from "@rjsf/shadcn/lib/RangeWidget/RangeWidget.js";
import { generateTemplates } from "@rjsf/shadcn/lib/Templates/Templates.js";
import { ObjectField } from "./map-field";
import { templates } from "./templates";
import { AnyOfField, OneOfField } from "./templates/union-fields";
import { CheckboxWidget, NativeSelectWidget, TextareaWidget, TextWidget } from "./widgets";

const widgets = {
  CheckboxWidget,
  CheckboxesWidget,
  RadioWidget,
  RangeWidget,
  TextareaWidget,
  TextWidget,
  SelectWidget: NativeSelectWidget,
};

const fields = { AnyOfField, OneOfField, ObjectField };

export const ThemedForm = withTheme({ templates: { ...generateTemplates(), ...templates }, widgets, fields });
