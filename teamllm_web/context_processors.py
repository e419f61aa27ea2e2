from core.accounts.roles import is_admin, is_rater, is_researcher, user_roles_conflict


def roles(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_admin": False, "is_rater": False, "is_researcher": False, "roles_conflict": False}
    return {
        "is_admin": is_admin(user),
        "is_rater": is_rater(user),
        "is_researcher": is_researcher(user),
        "roles_conflict": user_roles_conflict(user),
    }
