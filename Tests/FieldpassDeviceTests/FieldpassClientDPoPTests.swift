import FieldpassDevice
import Foundation
import Testing
import Tokens

/// The library with a DPoP key against the real `fieldpass serve`: the registration binds the
/// tokens to the key, and every refresh and sign-out is proven. Refresh tokens are compared,
/// never printed.
@Suite struct FieldpassClientDPoPTests {
    @Test func aBoundRefreshTokenWorksOnlyWithTheKeyAndAFailedTryCostsTheOwnerNothing() async throws {
        try await withServer { server in
            let key = SoftwareDPoPKey()
            let (client, store, issued) = try await onboarded(server, email: "ada@example.com", dpopKey: key)
            let backend = Backend(server: server)
            let thumbprint = try key.thumbprint
            #expect(try await backend.boundKey(issued.refreshToken) == thumbprint)

            // A copy of the refresh token, without the key: by hand, by a client without a key, by
            // one with another key. Each is refused, and none rotates the token or revokes the device.
            let plain = try await backend.refreshAnswer(issued.refreshToken)
            #expect(plain.status == 400 && plain.error == "invalid_dpop_proof")
            let due = TokenSet(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: Date())
            for thief in [nil, SoftwareDPoPKey()] as [SoftwareDPoPKey?] {
                let copy = MemoryTokenStore()
                await copy.save(due)
                let stolen = FieldpassClient(server: server.url, store: copy, dpopKey: thief)
                let refused = await #expect(throws: FieldpassClientError.self) { _ = try await stolen.accessToken() }
                guard case .server(400, "invalid_dpop_proof", _) = refused else {
                    Issue.record("refused with \(String(describing: refused))")
                    return
                }
                #expect(await copy.load() == due, "a refused proof is not a revoked device")
            }
            #expect(try await backend.isActive(issued.refreshToken))

            // The owner's client still refreshes, proven, and the successor is bound to the same key.
            await store.save(due)
            let fresh = try await client.accessToken()
            let refreshed = try #require(await store.load())
            let rotated = refreshed.refreshToken != issued.refreshToken
            #expect(fresh != issued.accessToken && rotated && fresh == refreshed.accessToken)
            #expect(try await backend.boundKey(refreshed.refreshToken) == thumbprint)

            // The sign-out's revocation is proven too: a bound token's /revoke needs it.
            try await client.signOut()
            #expect(await store.load() == nil)
            #expect(try await !backend.isActive(refreshed.refreshToken))
            #expect(try await !backend.isActive(fresh))
        }
    }

    @Test func aClientWithoutAKeyRegistersUnboundAsBefore() async throws {
        try await withServer { server in
            let (_, _, issued) = try await onboarded(server, email: "grace@example.com", session: ObservedRequests.session())
            #expect(try await Backend(server: server).boundKey(issued.refreshToken) == nil)
            #expect(ObservedRequests.proofs(to: server.url, path: "/register_device").isEmpty)
        }
    }

    @Test func aBoundAccessTokenIsTakenWithTheClientsProofAndNotAsABearer() async throws {
        try await withServer(dpop: "{bind_access_tokens: true, nonce: true}") { server in
            let key = SoftwareDPoPKey()
            let (client, _, _) = try await onboarded(server, email: "radia@example.com", dpopKey: key)
            let token = try await client.accessToken()
            let thumbprint = try key.thumbprint
            #expect(try await Backend(server: server).boundKey(token) == thumbprint)
            let me = server.url.appendingPathComponent("me")
            #expect(try await HTTP.get(me, headers: ["Authorization": "Bearer \(token)"]).0 == 401)
            // The proof carries the nonce the client kept and the token's hash.
            let proof = try #require(try await client.dpopProof(method: "GET", url: me, accessToken: token))
            let (status, body) = try await HTTP.get(me, headers: ["Authorization": "DPoP \(token)", "DPoP": proof])
            #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
            let keyless = FieldpassClient(server: server.url, store: MemoryTokenStore())
            #expect(try await keyless.dpopProof(method: "GET", url: me, accessToken: token) == nil)
        }
    }
}
