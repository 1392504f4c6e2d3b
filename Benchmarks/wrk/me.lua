-- GET /me with the access token of an onboarded device from $BENCH_ACCESS_TOKEN.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "report.lua")

wrk.headers["Authorization"] = "Bearer " .. assert(os.getenv("BENCH_ACCESS_TOKEN"), "BENCH_ACCESS_TOKEN is not set")
