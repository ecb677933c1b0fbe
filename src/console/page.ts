import type { ConsoleBundle } from "./bundle.ts";

const v = (etag: string) => encodeURIComponent(etag.replaceAll('"', ""));

/** The HTML shell: no inline script or style, so the console's CSP needs no exception for it. */
export const consolePage = (b: ConsoleBundle): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Mailroom console</title>
<link rel="stylesheet" href="/console/app.css?v=${v(b.css.etag)}">
<script type="module" src="/console/app.js?v=${v(b.js.etag)}"></script>
</head>
<body>
<div id="app"><noscript>The Mailroom console needs JavaScript.</noscript></div>
</body>
</html>
`;
