app_name = "generation"

urlpatterns: list = []
