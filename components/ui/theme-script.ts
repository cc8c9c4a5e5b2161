// The theme's storage key and the tiny script the root layout inlines in <head> so the saved theme
// is applied before first paint. Kept out of the client component so the server gets the string.
export type Theme = "light" | "dark" | "system";
export const THEME_STORAGE_KEY = "ors-theme";

export const THEME_INIT_SCRIPT = `(function(){try{var t=localStorage.getItem("${THEME_STORAGE_KEY}")||"system";var d=t==="dark"||(t==="system"&&window.matchMedia("(prefers-color-scheme: dark)").matches);document.documentElement.classList.toggle("dark",d);}catch(e){}})();`;
