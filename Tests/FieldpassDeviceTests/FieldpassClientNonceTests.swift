import FieldpassDevice
import Foundation
import Testing
import Tokens

/// The library against a server that asks for DPoP nonces (`dpop.nonce: true`, RFC 9449 §8).
@Suite struct FieldpassClientNonceTests {
    @Test func aServerThatAsksForANonceGetsOneRetryAndTheNonceIsKeptForTheNextProofs() async throws {
        try await withServer(dpop: "{nonce: true}") { server in
            let key = SoftwareDPoPKey()
            let (client, store, issued) = try await onboarded(
                server, email: "hedy@example.com", dpopKey: key, session: ObservedRequests.session())
            let thumbprint = try key.thumbprint
            #expect(try await Backend(server: server).boundKey(issued.refreshToken) == thumbprint)
            // The first proof had no nonce and was refused with use_dpop_nonce; the one retry
            // carried the nonce that answer gave.
            let registrations = try ObservedRequests.proofs(to: server.url, path: "/register_device").map { try DPoPProof(verifying: $0) }
            #expect(registrations.map { $0.nonce == nil } == [true, false])

            // Later calls carry the nonce the last answer gave (the polls' included): one request each.
            await store.save(TokenSet(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: Date()))
            _ = try await client.accessToken()
            try await client.signOut()
            for path in ["/token", "/revoke"] {
                let proofs = try ObservedRequests.proofs(to: server.url, path: path).map { try DPoPProof(verifying: $0) }
                #expect(proofs.count == 1 && proofs.allSatisfy { $0.nonce != nil && $0.thumbprint == thumbprint }, "\(path)")
            }
        }
    }
}
