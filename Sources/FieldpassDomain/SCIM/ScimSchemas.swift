/// The schema URNs Fieldpass speaks.
package enum ScimSchemas {
    package static let user = "urn:ietf:params:scim:schemas:core:2.0:User"
    package static let group = "urn:ietf:params:scim:schemas:core:2.0:Group"
    package static let listResponse = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
    package static let patchOp = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
    package static let error = "urn:ietf:params:scim:api:messages:2.0:Error"
    package static let serviceProviderConfig = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
    package static let resourceType = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
    package static let schema = "urn:ietf:params:scim:schemas:core:2.0:Schema"

    /// URNs a path or a filter may start with.
    package static let resourceURNs = [user, group]
}
