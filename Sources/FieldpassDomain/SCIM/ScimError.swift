/// A SCIM error (RFC 7644 §3.12): the HTTP status, the `scimType` where the RFC names one,
/// and a detail written for the IdP's administrator.
package struct ScimError: Error, Sendable, Equatable {
    package var status: Int
    package var scimType: String?
    package var detail: String

    package init(status: Int, scimType: String? = nil, _ detail: String) {
        self.status = status
        self.scimType = scimType
        self.detail = detail
    }

    package static func invalidSyntax(_ detail: String) -> ScimError { ScimError(status: 400, scimType: "invalidSyntax", detail) }
    package static func invalidValue(_ detail: String) -> ScimError { ScimError(status: 400, scimType: "invalidValue", detail) }
    package static func invalidPath(_ detail: String) -> ScimError { ScimError(status: 400, scimType: "invalidPath", detail) }
    package static func invalidFilter(_ detail: String) -> ScimError { ScimError(status: 400, scimType: "invalidFilter", detail) }
    package static func noTarget(_ detail: String) -> ScimError { ScimError(status: 400, scimType: "noTarget", detail) }
    /// A request that asks for more work than Fieldpass does in one: RFC 7644 §3.12 names it
    /// for filters; a PATCH past its limits gets it too, as the sign to split it.
    package static func tooMany(_ detail: String) -> ScimError { ScimError(status: 400, scimType: "tooMany", detail) }
    package static func mutability(_ detail: String) -> ScimError { ScimError(status: 400, scimType: "mutability", detail) }
    package static func uniqueness(_ detail: String) -> ScimError { ScimError(status: 409, scimType: "uniqueness", detail) }
    package static func notFound(_ detail: String) -> ScimError { ScimError(status: 404, detail) }
}
