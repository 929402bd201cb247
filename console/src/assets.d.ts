// esbuild bundles a stylesheet a module imports into the page's one .css file.
declare module '*.css';
