import { HomeView } from "@/components/servers/home-view";

export default function HomePage() {
  return <HomeView />;
}
