// Kept in sync with package.json by a unit test; a constant avoids reading package.json at startup.
export const VERSION = '0.1.0';
