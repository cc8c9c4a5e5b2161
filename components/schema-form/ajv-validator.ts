// The form's AJV 8 validator (draft 7), with `discriminator` on: a tagged union is checked against
// the tagged option only. Its own chunk, loaded after the form's first render (validation.ts).
import { customizeValidator } from "@rjsf/validator-ajv8";

export const ajvValidator = customizeValidator({ ajvOptionsOverrides: { discriminator: true } });
