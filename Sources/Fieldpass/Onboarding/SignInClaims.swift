import FieldpassDomain
import Logging

/// The role and teams a sign-in's claims give under its environment's mappings.
///
/// Claims come from the ID token; where it lacks one, from userinfo when that was read anyway
/// (for an ID token without an email), never from a call made for the mapping alone.
enum SignInClaims {
    static func mapped(
        _ mappings: ClaimMappings, idToken: IdPClaims, userInfo: IdPClaims?, environmentID: String, logger: Logger
    ) -> MappedClaims {
        let mapped = ClaimRules.mapped(mappings) { idToken.value(of: $0, fallback: userInfo) }
        // One line a sign-in, naming the mappings and why; never the claims' values.
        if !mapped.skipped.isEmpty {
            var metadata: Logger.Metadata = ["environment": "\(environmentID)"]
            for skipped in mapped.skipped { metadata[skipped.mapping.rawValue] = "\(skipped.reason.rawValue)" }
            logger.info("Sign-in claim unusable, its mapping changes nothing", metadata: metadata)
        }
        return mapped
    }
}
