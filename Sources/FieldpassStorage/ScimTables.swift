/// The tables of migration `7-scim`, the same on both stores but for the time and flag types.
enum ScimTables {
    /// `real` is the dialect's type of a time in seconds.
    static func sql(real: String) -> String {
        """
        CREATE TABLE scim_users (
            user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            external_id TEXT,
            display_name TEXT,
            name TEXT,
            emails TEXT,
            removed_at \(real),
            updated_at \(real) NOT NULL
        );
        CREATE INDEX scim_users_external ON scim_users(external_id);
        CREATE TABLE scim_groups (
            id TEXT PRIMARY KEY,
            environment_id TEXT NOT NULL,
            team_id TEXT UNIQUE REFERENCES teams(id) ON DELETE CASCADE,
            display_name TEXT NOT NULL,
            external_id TEXT,
            created_at \(real) NOT NULL,
            updated_at \(real) NOT NULL
        );
        CREATE INDEX scim_groups_environment ON scim_groups(environment_id, created_at);
        CREATE TABLE scim_group_members (
            group_id TEXT NOT NULL REFERENCES scim_groups(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            PRIMARY KEY (group_id, user_id)
        );
        CREATE INDEX scim_group_members_user ON scim_group_members(user_id);
        """
    }
}
