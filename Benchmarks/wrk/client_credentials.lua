-- POST /token, grant_type=client_credentials, with HTTP Basic from $BENCH_BASIC_AUTH
-- (base64 of id:secret; from the environment so that it never shows in a process list).
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "report.lua")

wrk.method = "POST"
wrk.body = "grant_type=client_credentials"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic " .. assert(os.getenv("BENCH_BASIC_AUTH"), "BENCH_BASIC_AUTH is not set")
