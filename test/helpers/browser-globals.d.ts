// The browser's globals as `page.evaluate` callbacks see them (they run in chromium, not in Node),
// typed loosely: the test project compiles without TypeScript's DOM library, whose fetch and
// Response types clash with Node's.
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: any): any;
type HTMLElement = any;
type HTMLInputElement = any;
