/// A team a sign-in was to create was created by another transaction after the sign-in looked
/// for it (an admin's, which takes no turn on the name): the PostgreSQL store runs the sign-in
/// again, and it then finds the team.
struct TeamNameTakenMeanwhile: Error {}
