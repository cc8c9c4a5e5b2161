"use client";
// The generated forms' theme: rjsf's core with this folder's registries of templates (templates/),
// widgets (widgets.tsx: one-line inputs, text areas, a checkbox, a native <select> with a real
// <label>) and fields (the map field, the unions' none/set choice); rjsf's plain defaults fill in
// the rest. Nothing else is bundled (no theme's own components): the form's code is what a tool
// form waits for.
import { withTheme } from "@rjsf/core";
import { ObjectField } from "./map-field";
import { templates } from "./templates";
import { AnyOfField, OneOfField } from "./templates/union-fields";
import { CheckboxWidget, NativeSelectWidget, TextareaWidget, TextWidget } from "./widgets";

const widgets = { CheckboxWidget, TextareaWidget, TextWidget, SelectWidget: NativeSelectWidget };

const fields = { AnyOfField, OneOfField, ObjectField };

export const ThemedForm = withTheme({ templates, widgets, fields });
