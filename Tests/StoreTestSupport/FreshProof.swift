public import FieldpassDomain
public import Foundation

/// A DPoP proof of the key with thumbprint `key`, checked but not yet used (each has a replay
/// key of its own), remembered as long as the service remembers a proof: what a store test
/// hands a change a device proved.
public func freshProof(by key: String) -> DPoPRules.AcceptedProof {
    DPoPRules.AcceptedProof(thumbprint: key, replayKey: UUID().uuidString, rememberUntil: Date().addingTimeInterval(65))
}
