"""The Django admin app with the product's site (``teamllm_web.admin_site``), which
Django imports once the models are loaded."""

from django.contrib.admin.apps import AdminConfig


class TeamAdminConfig(AdminConfig):
    default_site = "teamllm_web.admin_site.TeamAdminSite"
