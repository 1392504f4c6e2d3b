/// Realm paths used by Fieldpass.
public enum RealmPath {
    /// The personal realm of a user.
    public static func personal(userID: String) -> String { "/users/\(userID)" }
}
