from studies.roles import ADMIN, RATER, RESEARCHER, user_roles


def roles(request):
    user = getattr(request, "user", None)
    found = user_roles(user) if user is not None else set()
    return {"is_admin": ADMIN in found, "is_rater": RATER in found, "is_researcher": RESEARCHER in found}
