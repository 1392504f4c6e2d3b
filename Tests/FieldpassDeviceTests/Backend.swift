import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The company's backend and the sync server, as Fieldpass's API sees them: the service
/// account fills realms and asks `/introspect`; `/metrics` counts the refreshes.
struct Backend {
    let server: RunningFieldpass

    private var credentials: (String, String) { ("backend", RunningFieldpass.backendSecret) }

    func markInitialized(_ realmPath: String) async throws {
        let (status, body) = try await HTTP.post(
            server.url.appendingPathComponent("token"), form: "grant_type=client_credentials", basic: credentials
        )
        guard status == 200, let token = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["access_token"] as? String else {
            throw Refused(status: status)
        }
        let (marked, _) = try await HTTP.post(
            server.url.appendingPathComponent("integration/realms/initialized"),
            form: String(decoding: try JSONSerialization.data(withJSONObject: ["realm_path": realmPath]), as: UTF8.self),
            bearer: token, json: true
        )
        guard marked == 200 else { throw Refused(status: marked) }
    }

    /// Whether `/introspect` says `token` is active.
    func isActive(_ token: String) async throws -> Bool {
        guard let active = try await introspection(token)["active"] as? Bool else { throw Refused(status: 200) }
        return active
    }

    /// What `/introspect` says of `token` (RFC 7662), asked as the backend.
    func introspection(_ token: String) async throws -> [String: Any] {
        let (status, body) = try await HTTP.post(
            server.url.appendingPathComponent("introspect"), form: "token=\(token)", basic: credentials)
        guard status == 200, let answer = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw Refused(status: status)
        }
        return answer
    }

    /// The key `token` is bound to (`cnf.jkt`), if it is.
    func boundKey(_ token: String) async throws -> String? {
        (try await introspection(token)["cnf"] as? [String: Any])?["jkt"] as? String
    }

    /// Refresh grants Fieldpass has answered since it started, by result: `issued`, or the OAuth
    /// error it refused one with, such as `invalid_grant` (`fieldpass_token_grants_total`).
    func refreshGrants() async throws -> [String: Int] {
        let (_, body) = try await HTTP.get(server.url.appendingPathComponent("metrics"))
        let series = #"fieldpass_token_grants_total{grant_type="refresh_token",result=""#
        var grants: [String: Int] = [:]
        for line in String(decoding: body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(series) {
            let rest = line.dropFirst(series.count)
            guard let quote = rest.firstIndex(of: "\""), let count = rest.split(separator: " ").last.flatMap({ Int($0) }) else { continue }
            grants[String(rest[..<quote]), default: 0] += count
        }
        return grants
    }

    /// A refresh by someone else holding a copy of the device's refresh token, without its key.
    func refresh(_ refreshToken: String) async throws -> Int {
        try await refreshAnswer(refreshToken).status
    }

    /// Such a refresh's status and OAuth `error`, if refused.
    func refreshAnswer(_ refreshToken: String) async throws -> (status: Int, error: String?) {
        let (status, body) = try await HTTP.post(
            server.url.appendingPathComponent("token"), form: "grant_type=refresh_token&refresh_token=\(refreshToken)")
        return (status, (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String)
    }

    struct Refused: Error {
        let status: Int
    }
}
