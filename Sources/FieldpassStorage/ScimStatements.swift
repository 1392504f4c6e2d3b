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

    /// The names and external ids of the person's role groups but one: person, environment, group.
    static let roleGroupKeys = SharedStatement { value in
        """
        SELECT g.display_name, g.external_id FROM scim_group_members m JOIN scim_groups g ON g.id = m.group_id
        WHERE m.user_id = \(value(1)) AND g.environment_id = \(value(2)) AND g.id <> \(value(3))
        """
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
