import FieldpassDomain
import GRDB

extension SessionTransition {
    /// `status IN (?, …)`: one placeholder per state the transition leaves, bound by ``fromArguments``.
    var fromCondition: String {
        "status IN (" + from.map { _ in "?" }.joined(separator: ", ") + ")"
    }

    var fromArguments: StatementArguments {
        StatementArguments(fromValues)
    }
}
