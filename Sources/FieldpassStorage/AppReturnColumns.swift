import FieldpassDomain

/// The two columns of a session that say where its browser returns to the app, the same in
/// both dialects.
enum AppReturnColumns {
    /// Adds them: `NULL` for every session registered before, which ends on Fieldpass's pages.
    static let sql = """
        ALTER TABLE sessions ADD COLUMN app_redirect_uri TEXT;
        ALTER TABLE sessions ADD COLUMN app_state TEXT;
        """

    static func appReturn(uri: String?, state: String?) -> AppReturn? {
        uri.map { AppReturn(uri: $0, state: state) }
    }
}
