// dom-accessibility-api ships its types without naming them in package.json's "exports".
declare module "dom-accessibility-api" {
  export function computeAccessibleName(element: Element): string;
}
