// page.js is the browser's code, imported as text (rest/ui/assets.ts): to TypeScript it is a string.
declare const text: string;
export default text;
