/// The schemas Fieldpass publishes at `/Schemas` (RFC 7643 §7): exactly what it keeps.
enum ScimSchemaDocuments {
    static let user = #"""
        {
          "id": "urn:ietf:params:scim:schemas:core:2.0:User",
          "name": "User",
          "description": "A person of the environment; userName is their work email.",
          "attributes": [
            {
              "name": "userName",
              "type": "string",
              "multiValued": false,
              "description": "The work email; its domain is one of the environment's.",
              "required": true,
              "caseExact": false,
              "mutability": "readWrite",
              "returned": "default",
              "uniqueness": "server"
            },
            {
              "name": "name",
              "type": "complex",
              "multiValued": false,
              "description": "The person's name.",
              "required": false,
              "mutability": "readWrite",
              "returned": "default",
              "uniqueness": "none",
              "subAttributes": [
                {
                  "name": "formatted",
                  "type": "string",
                  "multiValued": false,
                  "description": "The full name.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "familyName",
                  "type": "string",
                  "multiValued": false,
                  "description": "Family name.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "givenName",
                  "type": "string",
                  "multiValued": false,
                  "description": "Given name.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "middleName",
                  "type": "string",
                  "multiValued": false,
                  "description": "Middle name.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "honorificPrefix",
                  "type": "string",
                  "multiValued": false,
                  "description": "Honorific prefix.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "honorificSuffix",
                  "type": "string",
                  "multiValued": false,
                  "description": "Honorific suffix.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                }
              ]
            },
            {
              "name": "displayName",
              "type": "string",
              "multiValued": false,
              "description": "The name shown for the person.",
              "required": false,
              "caseExact": false,
              "mutability": "readWrite",
              "returned": "default",
              "uniqueness": "none"
            },
            {
              "name": "emails",
              "type": "complex",
              "multiValued": true,
              "description": "Email addresses.",
              "required": false,
              "mutability": "readWrite",
              "returned": "default",
              "uniqueness": "none",
              "subAttributes": [
                {
                  "name": "value",
                  "type": "string",
                  "multiValued": false,
                  "description": "The email address.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "type",
                  "type": "string",
                  "multiValued": false,
                  "description": "work, home or other.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "primary",
                  "type": "boolean",
                  "multiValued": false,
                  "description": "Whether this is the primary address.",
                  "required": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "display",
                  "type": "string",
                  "multiValued": false,
                  "description": "How the address is shown.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readWrite",
                  "returned": "default",
                  "uniqueness": "none"
                }
              ]
            },
            {
              "name": "active",
              "type": "boolean",
              "multiValued": false,
              "description": "false disables the person at once: every device revoked. Taken as true when a POST leaves it out.",
              "required": true,
              "mutability": "readWrite",
              "returned": "default",
              "uniqueness": "none"
            }
          ]
        }
        """#

    static let group = #"""
        {
          "id": "urn:ietf:params:scim:schemas:core:2.0:Group",
          "name": "Group",
          "description": "A team, or a role group named in roles_from_idp.map.",
          "attributes": [
            {
              "name": "displayName",
              "type": "string",
              "multiValued": false,
              "description": "The team's name, or a name roles_from_idp.map maps to a role.",
              "required": true,
              "caseExact": false,
              "mutability": "readWrite",
              "returned": "default",
              "uniqueness": "none"
            },
            {
              "name": "members",
              "type": "complex",
              "multiValued": true,
              "description": "The people of the group.",
              "required": false,
              "mutability": "readWrite",
              "returned": "default",
              "uniqueness": "none",
              "subAttributes": [
                {
                  "name": "value",
                  "type": "string",
                  "multiValued": false,
                  "description": "The member's user id.",
                  "required": false,
                  "caseExact": true,
                  "mutability": "immutable",
                  "returned": "default",
                  "uniqueness": "none"
                },
                {
                  "name": "$ref",
                  "type": "reference",
                  "multiValued": false,
                  "description": "The member's URI.",
                  "required": false,
                  "mutability": "immutable",
                  "returned": "default",
                  "uniqueness": "none",
                  "referenceTypes": [
                    "User"
                  ]
                },
                {
                  "name": "type",
                  "type": "string",
                  "multiValued": false,
                  "description": "Always User.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "immutable",
                  "returned": "default",
                  "uniqueness": "none",
                  "canonicalValues": [
                    "User"
                  ]
                },
                {
                  "name": "display",
                  "type": "string",
                  "multiValued": false,
                  "description": "The member's name.",
                  "required": false,
                  "caseExact": false,
                  "mutability": "readOnly",
                  "returned": "default",
                  "uniqueness": "none"
                }
              ]
            }
          ]
        }
        """#
}
