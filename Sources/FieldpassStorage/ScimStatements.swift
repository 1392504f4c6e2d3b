/// The statements of SCIM's people and groups both stores share (``SharedStatement``; the
/// columns and conditions they read are ``ScimColumns``).
enum ScimStatements {
    /// The person SCIM lists with this id: environment, id.
    static let user = SharedStatement { value in
        "SELECT \(ScimColumns.userColumns) \(ScimColumns.listedUsers)\(value(1)) AND s.removed_at IS NULL AND u.id = \(value(2))"
    }

    /// Whether SCIM provisioned the person; one SCIM deleted still counts, since only the IdP
    /// may bring them back: person, environment.
    static let provisioned = SharedStatement { value in
        """
        SELECT EXISTS (SELECT 1 FROM scim_users s JOIN users u ON u.id = s.user_id
                       WHERE s.user_id = \(value(1)) AND u.environment_id = \(value(2)))
        """
    }

    /// Stores the person's SCIM attributes, listing them again if SCIM had removed them:
    /// person, external id, display name, name, emails, time.
    static let saveProfile = SharedStatement { value in
        """
        INSERT INTO scim_users (user_id, external_id, display_name, name, emails, removed_at, updated_at)
        VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), NULL, \(value(6)))
        ON CONFLICT (user_id) DO UPDATE SET external_id = excluded.external_id, display_name = excluded.display_name,
            name = excluded.name, emails = excluded.emails, removed_at = NULL, updated_at = excluded.updated_at
        """
    }

    /// Time, person.
    static let markRemoved = SharedStatement { value in "UPDATE scim_users SET removed_at = \(value(1)) WHERE user_id = \(value(2))" }

    /// The group with this id: environment, id.
    static let group = SharedStatement { value in
        "SELECT \(ScimColumns.groupColumns) \(ScimColumns.groups)\(value(1)) AND g.id = \(value(2))"
    }

    /// Whether a group of the environment has the name, in any case: environment, name.
    static let groupNameTaken = SharedStatement { value in
        """
        SELECT EXISTS (SELECT 1 \(ScimColumns.groups)\(value(1))
                       AND lower(COALESCE(t.name, g.display_name)) = lower(\(value(2))))
        """
    }

    /// Whether the team is a SCIM group's: team, environment.
    static let teamIsGroup = SharedStatement { value in
        "SELECT EXISTS (SELECT 1 FROM scim_groups WHERE team_id = \(value(1)) AND environment_id = \(value(2)))"
    }

    /// The names and external ids of each person's role groups but one, by person: people (a
    /// list), environment, group.
    static let otherRoleGroupKeys = SharedStatement(dialects: { sql in
        """
        SELECT m.user_id, g.display_name, g.external_id FROM scim_group_members m JOIN scim_groups g ON g.id = m.group_id
        WHERE \(sql.isOneOf("m.user_id", list: 1)) AND g.environment_id = \(sql.value(2)) AND g.id <> \(sql.value(3))
        """
    })

    /// The people of the environment among some, in id order, to lock: people (a list), environment.
    static let people = SharedStatement(dialects: { sql in
        """
        SELECT \(UserStatements.columns) FROM users WHERE \(sql.isOneOf("id", list: 1)) AND environment_id = \(sql.value(2))
        ORDER BY \(sql.bytewise("id"))
        """
    })

    /// A role group's members and some people, in id order, to lock them all: group, people (a list).
    static let membersAndPeople = SharedStatement(dialects: { sql in
        """
        SELECT \(UserStatements.columns) FROM users
        WHERE id IN (SELECT user_id FROM scim_group_members WHERE group_id = \(sql.value(1))) OR \(sql.isOneOf("id", list: 2))
        ORDER BY \(sql.bytewise("id"))
        """
    })

    /// Who of some people SCIM lists in the environment: environment, people (a list).
    static let listedAmong = SharedStatement(dialects: { sql in
        "SELECT u.id \(ScimColumns.listedUsers)\(sql.value(1)) AND s.removed_at IS NULL AND \(sql.isOneOf("u.id", list: 2))"
    })

    /// Whether SCIM lists the person (it lists all but those it removed): person.
    static let isListed = SharedStatement { value in
        "SELECT s.removed_at IS NULL FROM users u LEFT JOIN scim_users s ON s.user_id = u.id WHERE u.id = \(value(1))"
    }

    /// The group's id, to lock its row: id, environment.
    static let groupID = SharedStatement { value in
        "SELECT id FROM scim_groups WHERE id = \(value(1)) AND environment_id = \(value(2))"
    }

    /// People or groups by creation, where a filter's column has its value: how many there
    /// are (``count``) and a page of them (``page``).
    struct Listing {
        /// What is read, from what, up to the environment's placeholder.
        private let columns: String
        private let source: String
        /// What the rows must be besides being of the environment, up to the filter's value.
        private let condition: String
        /// The columns of the order of creation, the id last.
        private let created: String
        private let id: String
        /// The filter's value, as stored.
        let value: String

        /// People SCIM lists whose `filter`ed attribute has its value (``ScimColumns/userCondition(_:)``).
        static func users(_ filter: (attribute: String, value: String)?) -> Listing {
            let (column, value) = filter.map(ScimColumns.userCondition) ?? unfiltered
            return Listing(
                columns: ScimColumns.userColumns, source: ScimColumns.listedUsers, condition: "s.removed_at IS NULL AND \(column)",
                created: "u.created_at", id: "u.id", value: value)
        }

        /// Groups whose `filter`ed attribute has its value (``ScimColumns/groupCondition(_:)``).
        static func groups(_ filter: (attribute: String, value: String)?) -> Listing {
            let (column, value) = filter.map(ScimColumns.groupCondition) ?? unfiltered
            return Listing(
                columns: ScimColumns.groupColumns, source: ScimColumns.groups, condition: column, created: "g.created_at", id: "g.id",
                value: value)
        }

        /// Without a filter, '' = '' keeps every row: one statement text either way.
        private static let unfiltered = (column: "''", value: "")

        /// Environment, value.
        var count: SharedStatement {
            SharedStatement { value in "SELECT COUNT(*) \(source)\(value(1)) AND \(condition) = \(value(2))" }
        }

        /// Environment, value, limit, offset.
        var page: SharedStatement {
            SharedStatement(dialects: { sql in
                """
                SELECT \(columns) \(source)\(sql.value(1)) AND \(condition) = \(sql.value(2))
                ORDER BY \(created), \(sql.bytewise(id)) LIMIT \(sql.value(3)) OFFSET \(sql.value(4))
                """
            })
        }
    }

    /// Id, environment, team, display name, external id, time.
    static let createGroup = SharedStatement { value in
        """
        INSERT INTO scim_groups (id, environment_id, team_id, display_name, external_id, created_at, updated_at)
        VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), \(value(6)), \(value(6)))
        """
    }

    /// Display name, external id, time, id.
    static let updateGroup = SharedStatement { value in
        "UPDATE scim_groups SET display_name = \(value(1)), external_id = \(value(2)), updated_at = \(value(3)) WHERE id = \(value(4))"
    }

    static let deleteGroup = SharedStatement { value in "DELETE FROM scim_groups WHERE id = \(value(1))" }

    /// Role group, person.
    static let addRoleGroupMember = SharedStatement { value in
        "INSERT INTO scim_group_members (group_id, user_id) VALUES (\(value(1)), \(value(2)))"
    }

    /// Role group, person.
    static let removeRoleGroupMember = SharedStatement { value in
        "DELETE FROM scim_group_members WHERE group_id = \(value(1)) AND user_id = \(value(2))"
    }
}
