-- GET of the URL given to wrk (healthz, JWKS, discovery): only the shared accounting.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "report.lua")
