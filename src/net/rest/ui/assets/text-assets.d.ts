// Stylesheets imported with `with { type: "text" }` (rest/ui/assets.ts) are strings.
declare module "*.css" {
  const text: string;
  export default text;
}
